package dev.spillway.internal;

import dev.spillway.checkpoint.CheckpointCost;
import dev.spillway.checkpoint.CheckpointMode;
import dev.spillway.checkpoint.CheckpointReport;
import dev.spillway.checkpoint.RestorePoint;

/**
 * What checkpointing cost and did: time tasks were held back, each generation's cost, totals over the run, and how a
 * restarted run fared (tasks restored, time to re-execute the lost ones). Written on the IO thread; the totals that
 * {@link #report} reads from another thread are volatile.
 */
final class CheckpointMetrics
{
    private final long startNanos = System.nanoTime();
    private final RestorePoint restored;
    private final double restoreSeconds;
    private final long restoredTasks;
    private final long reexecuteTarget;
    private volatile long reexecuteNanos = -1;

    /** Held-back time: tasks parked now, since when, and the total of earlier spells. */
    private int heldCount;
    private long heldStart;
    private volatile long blockNanos;

    /** The generation in flight. */
    private long cutNanos;
    private long blockAtCut;
    private long genBytes;
    private int genSaved;
    private int genInherited;
    private long genInterference;

    private volatile int committed;
    private volatile int abandoned;
    private volatile long totalNanos;
    private volatile long bytesWritten;
    private volatile long objectsSaved;
    private volatile long objectsInherited;

    /**
     * @param restored       the generation resumed from, or {@code null}.
     * @param restoreSeconds time spent finding and verifying it.
     */
    CheckpointMetrics(final RestorePoint restored, final double restoreSeconds)
    {
        this.restored = restored;
        this.restoreSeconds = restoreSeconds;
        this.restoredTasks = restored == null ? 0 : restored.cut().frontier();
        final long before = restored == null ? -1 : restored.previousRunCompleted();
        this.reexecuteTarget = before < 0 ? 0 : Math.max(0, before - restoredTasks);
    }

    /** @return tasks restored from the checkpoint, not run. */
    long restoredTasks()
    {
        return restoredTasks;
    }

    /** {@code t} is parked by a checkpoint. */
    void heldBegins(final TaskRecord t)
    {
        final long now = System.nanoTime();
        t.heldSince = now;
        if (heldCount++ == 0)
        {
            heldStart = now;
        }
    }

    /** {@code t} is no longer parked. */
    void heldEnds(final TaskRecord t)
    {
        if (t.heldSince == 0)
        {
            return;
        }
        t.heldSince = 0;
        if (--heldCount == 0)
        {
            blockNanos += System.nanoTime() - heldStart;
        }
    }

    private long blockNanosNow(final long now)
    {
        return blockNanos + (heldCount > 0 ? now - heldStart : 0);
    }

    /** A generation began at {@code now}: its cost is counted from here. */
    void cutTaken(final long now)
    {
        cutNanos = now;
        blockAtCut = blockNanosNow(now);
        genBytes = 0;
        genSaved = 0;
        genInherited = 0;
        genInterference = 0;
    }

    /** The generation saves one more object. */
    void saved()
    {
        genSaved++;
    }

    /** The generation inherits an unchanged object from the one before. */
    void inherited()
    {
        genInherited++;
    }

    /** The generation wrote {@code bytes}. */
    void wrote(final int bytes)
    {
        genBytes += bytes;
    }

    /** A checkpoint write took {@code nanos} while transfers waited. */
    void interfered(final long nanos)
    {
        genInterference += nanos;
    }

    /** @return the cost of the generation that committed at {@code end}, added to the totals. */
    CheckpointCost committed(final long end)
    {
        final CheckpointCost cost = new CheckpointCost(blockNanosNow(end) - blockAtCut, end - cutNanos,
            genInterference, genBytes, genSaved, genInherited);
        committed++;
        totalNanos += cost.totalNanos();
        bytesWritten += genBytes;
        objectsSaved += genSaved;
        objectsInherited += genInherited;
        return cost;
    }

    /** A generation was abandoned, or could not begin. */
    void abandoned()
    {
        abandoned++;
    }

    /** {@code userFinished} user tasks have finished: notes when a restarted run has redone what was lost. */
    void userFinished(final long userFinished)
    {
        if (reexecuteNanos < 0 && userFinished >= reexecuteTarget)
        {
            reexecuteNanos = System.nanoTime() - startNanos;
        }
    }

    /** @return the report, any thread; {@code userFinished} is the count of user tasks finished. */
    CheckpointReport report(final CheckpointMode mode, final String policy, final long userFinished)
    {
        final long reexec = restored == null ? 0 : Math.min(reexecuteTarget, userFinished);
        final long r = reexecuteNanos;
        return new CheckpointReport(true, mode, policy, committed, abandoned,
            blockNanosNow(System.nanoTime()) / 1e9, totalNanos / 1e9, bytesWritten, objectsSaved, objectsInherited,
            restored == null ? -1 : restored.cut().generation(), restoredTasks, reexec, restoreSeconds,
            restored == null ? 0 : restored.readSeconds(), restored == null ? 0 : restored.verifySeconds(),
            restored == null || r < 0 ? 0 : r / 1e9, restored == null ? "" : restored.explanation());
    }
}
