package dev.spillway.internal;

import dev.spillway.Privilege;
import dev.spillway.checkpoint.CheckpointCost;
import dev.spillway.checkpoint.CheckpointMode;
import dev.spillway.checkpoint.CheckpointPolicy;
import dev.spillway.checkpoint.CheckpointReport;
import dev.spillway.checkpoint.CheckpointStore;
import dev.spillway.checkpoint.Cut;
import dev.spillway.checkpoint.GenerationWriter;
import dev.spillway.checkpoint.RestorePoint;
import dev.spillway.io.CrashPoints;
import dev.spillway.memory.BufferPool;
import dev.spillway.memory.DataObject;
import dev.spillway.memory.DramBudget;
import dev.spillway.memory.TileBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;

/**
 * Checkpoints at cuts, on the IO thread. When the policy says so, the cut's frontier {@code S} is one past the
 * latest task admitted so far, so no task at or after {@code S} has touched its data. Every object written since its
 * last save gets a <em>save task</em>: an internal reader that depends on the object's last writer before {@code S};
 * writers at or after {@code S} of that object are parked at admission until it is captured. A captured object is
 * copied into a spare buffer (semi-blocking, DRAM allowing), which releases it at once, or else written through.
 * Writes share the IO thread with out-of-core transfers; the generation commits once every save is written and every
 * task before {@code S} has finished. In blocking mode every task at or after {@code S} is parked until the commit.
 */
final class Checkpointer
{
    private static final Privilege[] READ = {Privilege.READ};
    private static final long PROGRESS_NANOS = 1_000_000_000L;

    private final Engine engine;
    private final CheckpointStore store;
    private final CheckpointPolicy policy;
    private final boolean blocking;
    private final double share;
    private final BufferPool pool;
    private final DramBudget budget;
    private final Collection<DataRef> objects;
    private final ArrayDeque<SaveJob> writes = new ArrayDeque<>();
    private final ArrayList<TaskRecord> held = new ArrayList<>();
    private final ArrayList<TaskRecord> unfinished = new ArrayList<>();
    private IoAgent agent;
    private Admission admission;
    private LiveTasks live;
    private TaskRecord latestAdmitted;
    private long finishedAtCut;
    private long lastCutNanos = System.nanoTime();

    private GenerationWriter writer;
    private long frontier = -1;
    private long lastCommittedFrontier;
    private int savesLeft;
    private long beforeCutLeft;
    private boolean failedBeforeCut;
    /** A task failed: the data may be poisoned, so no later cut is taken. */
    private boolean failed;
    private volatile boolean stopped;
    private long cutNanos;
    private long blockAtCut;
    private long genBytes;
    private int genSaved;
    private int genInherited;
    private long genInterference;
    private long ckptContended;
    private long appContended;

    private int heldCount;
    private long heldStart;
    private volatile long blockNanos;

    private long userFinished;
    private long nextProgress;

    private volatile int committed;
    private volatile int abandoned;
    private volatile long totalNanos;
    private volatile long bytesWritten;
    private volatile long objectsSaved;
    private volatile long objectsInherited;
    private volatile long reexecuteNanos = -1;
    private final long restoredTasks;
    private final long reexecuteTarget;
    private final long startNanos = System.nanoTime();
    private final RestorePoint restored;
    private final double restoreSeconds;

    Checkpointer(final Engine engine, final CheckpointStore store, final CheckpointPolicy policy,
        final CheckpointMode mode, final double share, final BufferPool pool, final Collection<DataRef> objects,
        final RestorePoint restored, final double restoreSeconds)
    {
        this.engine = engine;
        this.store = store;
        this.policy = policy;
        this.blocking = mode == CheckpointMode.BLOCKING;
        this.share = share;
        this.pool = pool;
        this.budget = pool.budget();
        this.objects = objects;
        this.restored = restored;
        this.restoreSeconds = restoreSeconds;
        this.lastCommittedFrontier = restored == null ? 0 : restored.cut().frontier();
        this.restoredTasks = lastCommittedFrontier;
        final long before = restored == null ? -1 : restored.previousRunCompleted();
        this.reexecuteTarget = before < 0 ? 0 : Math.max(0, before - lastCommittedFrontier);
    }

    void wire(final IoAgent agent, final Admission admission, final LiveTasks live)
    {
        this.agent = agent;
        this.admission = admission;
        this.live = live;
    }

    /** Any thread: no cut after this one; a generation in flight still commits. */
    void stop()
    {
        stopped = true;
    }

    /** IO thread: a task was admitted; the next cut's frontier lies past the latest one. */
    void admitted(final TaskRecord t)
    {
        if (!t.saveTask() && (latestAdmitted == null || t.seq > latestAdmitted.seq))
        {
            latestAdmitted = t;
        }
    }

    /** IO thread: takes a cut if none is in flight, tasks were admitted since the last, and the policy says so. */
    private void maybeCut(final long now)
    {
        if (writer != null || failed || stopped || latestAdmitted == null || latestAdmitted.seq + 1 <= lastCommittedFrontier ||
            !policy.due(userFinished - finishedAtCut, now - lastCutNanos))
        {
            return;
        }
        final long cutFrontier = latestAdmitted.seq + 1;
        final Cut c = new Cut(store.nextGeneration(), cutFrontier, store.epoch(), latestAdmitted.prefixHash);
        lastCutNanos = now;
        finishedAtCut = userFinished;
        try
        {
            writer = store.begin(c);
        }
        catch (final IOException | RuntimeException e)
        {
            System.err.println("spillway: cannot begin checkpoint generation " + c.generation() + ": " +
                e.getMessage());
            abandoned++;
            return;
        }
        frontier = cutFrontier;
        cutNanos = now;
        blockAtCut = blockNanosNow(now);
        failedBeforeCut = false;
        savesLeft = 0;
        genBytes = 0;
        genSaved = 0;
        genInherited = 0;
        genInterference = 0;
        live.copyTo(unfinished);
        beforeCutLeft = 0;
        for (final TaskRecord t : unfinished)
        {
            beforeCutLeft += !t.saveTask() && t.seq < cutFrontier ? 1 : 0;
        }
        unfinished.clear();
        for (final DataRef r : objects)
        {
            final TaskRecord lastWriter = lastWriterBefore(r, cutFrontier);
            if (r.writesSinceSave > 0 || lastWriter != null)
            {
                save(r, lastWriter, c);
            }
            else if (r.ioHasContents)
            {
                genInherited++;
            }
        }
        maybeCommit();
    }

    private static TaskRecord lastWriterBefore(final DataRef r, final long cutFrontier)
    {
        TaskRecord last = null;
        for (final TaskRecord w : r.unfinishedWriters())
        {
            if (w.seq >= cutFrontier)
            {
                break;
            }
            last = w;
        }
        return last;
    }

    private void save(final DataRef r, final TaskRecord lastWriter, final Cut c)
    {
        final TaskRecord s = new TaskRecord(engine, "checkpoint " + c.generation() + " save '" + r.tag() + "'",
            null, new DataRef[] {r}, READ, Integer.MAX_VALUE, c.frontier(), 0);
        s.saveGeneration = c.generation();
        r.savePending = c.generation();
        savesLeft++;
        genSaved++;
        engine.countInternal();
        agent.submitSave(s, lastWriter);
    }

    /**
     * IO thread, at admission: parks {@code t} if it may not run before the checkpoint in flight has what it would
     * change. It is admitted again once that is captured (semi-blocking) or committed (blocking).
     */
    boolean parks(final TaskRecord t)
    {
        if (writer == null || t.saveTask() || t.seq < frontier)
        {
            return false;
        }
        if (blocking)
        {
            held.add(t);
            heldBegins(t);
            return true;
        }
        for (int i = 0; i < t.refs.length; i++)
        {
            final DataRef r = t.refs[i];
            if (t.privileges[i] != Privilege.READ && r.savePending == writer.cut().generation())
            {
                if (r.parked == null)
                {
                    r.parked = new ArrayList<>(2);
                }
                r.parked.add(t);
                heldBegins(t);
                return true;
            }
        }
        return false;
    }

    /** The object's save is captured: tasks parked on it may be admitted (and park again on another object). */
    private void captured(final DataRef r)
    {
        r.savePending = -1;
        r.writesSinceSave = 0;
        final ArrayList<TaskRecord> waiting = r.parked;
        if (waiting != null && !waiting.isEmpty())
        {
            for (final TaskRecord t : waiting)
            {
                heldEnds(t);
                agent.unpark(t);
            }
            waiting.clear();
        }
    }

    /** IO thread: a save task's object is resident. Copies it if DRAM allows, else writes it through. */
    void capture(final TaskRecord t)
    {
        CrashPoints.hit(CrashPoints.CAPTURE);
        t.status(TaskStatus.RUNNING);
        final DataRef ref = t.refs[0];
        final DataObject o = ref.object;
        if (!current(t))
        {
            agent.finishSave(t);
            return;
        }
        if (!ref.ioHasContents)
        {
            savesLeft--;
            captured(ref);
            agent.finishSave(t);
            maybeCommit();
            return;
        }
        final long cost = pool.cost(o.size());
        if (!blocking && budget.capacity() - budget.committed() - cost >= budget.capacity() / 8)
        {
            budget.commit(cost);
            final TileBuffer copy = pool.acquire(o.size());
            if (copy != null)
            {
                final ByteBuffer dst = copy.buffer().clear();
                dst.put(o.buffer().buffer().duplicate().clear().limit(o.size()));
                dst.clear();
                writes.addLast(new SaveJob(ref, copy, o.size(), o.version(), null));
                captured(ref);
                agent.finishSave(t);
                return;
            }
            budget.uncommit(cost);
        }
        writes.addLast(new SaveJob(ref, o.buffer(), o.size(), o.version(), t));
    }

    /** @return whether {@code t} saves for the generation in flight (not for one abandoned). */
    private boolean current(final TaskRecord t)
    {
        return writer != null && t.saveGeneration == writer.cut().generation();
    }

    boolean hasWrites()
    {
        return !writes.isEmpty();
    }

    /** @return whether checkpoint writes may go before waiting transfers, by the configured share of bytes. */
    boolean ckptTurn(final boolean transfersWaiting)
    {
        return !transfersWaiting || ckptContended * (1 - share) <= appContended * share;
    }

    /** IO thread: a transfer of {@code bytes} went while checkpoint writes waited. */
    void transferWhileWaiting(final int bytes)
    {
        appContended += bytes;
    }

    /** IO thread: writes the next captured object. */
    void writeOne(final boolean transfersWaiting)
    {
        final SaveJob j = writes.pollFirst();
        final long start = System.nanoTime();
        if (writer != null)
        {
            final ByteBuffer src = j.buffer.buffer().clear().limit(j.size);
            try
            {
                writer.save(j.ref.tag(), src, j.version);
                genBytes += j.size;
            }
            catch (final IOException | RuntimeException e)
            {
                abandon("cannot write '" + j.ref.tag() + "': " + e.getMessage());
            }
            finally
            {
                src.clear();
            }
        }
        release(j);
        savesLeft--;
        final long took = System.nanoTime() - start;
        if (transfersWaiting)
        {
            ckptContended += j.size;
            genInterference += took;
        }
        maybeCommit();
    }

    private void release(final SaveJob j)
    {
        if (j.task != null)
        {
            captured(j.ref);
            agent.finishSave(j.task);
        }
        else
        {
            pool.release(j.buffer);
            budget.uncommit(pool.cost(j.size));
            admission.changed();
        }
    }

    /** IO thread: a user task with data finished (done, failed or cancelled). */
    void userFinished(final TaskRecord t, final boolean ok)
    {
        if (t.heldSince != 0)
        {
            heldEnds(t);
        }
        userFinished++;
        failed |= !ok;
        if (writer != null && t.seq < frontier)
        {
            beforeCutLeft--;
            failedBeforeCut |= !ok;
            maybeCommit();
        }
        if (reexecuteNanos < 0 && userFinished >= reexecuteTarget)
        {
            reexecuteNanos = System.nanoTime() - startNanos;
        }
    }

    /** IO thread: a save task did not run (its object's producer failed, or close cancelled it). */
    void saveLost(final TaskRecord t)
    {
        if (!current(t))
        {
            return;
        }
        savesLeft--;
        failedBeforeCut = true;
        captured(t.refs[0]);
        maybeCommit();
    }

    private void maybeCommit()
    {
        if (writer == null || savesLeft > 0 || beforeCutLeft > 0)
        {
            return;
        }
        if (failedBeforeCut)
        {
            abandon("a task before the cut failed");
            return;
        }
        final long start = System.nanoTime();
        try
        {
            writer.commit();
        }
        catch (final IOException | RuntimeException e)
        {
            abandon("commit failed: " + e.getMessage());
            return;
        }
        final long end = System.nanoTime();
        final CheckpointCost cost = new CheckpointCost(blockNanosNow(end) - blockAtCut, end - cutNanos,
            genInterference, genBytes, genSaved, genInherited);
        writer = null;
        lastCommittedFrontier = frontier;
        committed++;
        totalNanos += cost.totalNanos();
        bytesWritten += genBytes;
        objectsSaved += genSaved;
        objectsInherited += genInherited;
        policy.committed(cost);
        releaseHeld();
    }

    private void abandon(final String why)
    {
        System.err.println("spillway: checkpoint generation " + writer.cut().generation() + " abandoned (" + why +
            "); the previous one stays the newest");
        writer.abandon();
        writer = null;
        abandoned++;
        SaveJob j;
        while ((j = writes.pollFirst()) != null)
        {
            release(j);
        }
        for (final DataRef r : objects)
        {
            if (r.savePending >= 0)
            {
                captured(r);
            }
        }
        releaseHeld();
    }

    private void releaseHeld()
    {
        for (final TaskRecord t : held)
        {
            heldEnds(t);
            agent.unpark(t);
        }
        held.clear();
    }

    /** IO thread: {@code t} is parked by a checkpoint. */
    void heldBegins(final TaskRecord t)
    {
        final long now = System.nanoTime();
        t.heldSince = now;
        if (heldCount++ == 0)
        {
            heldStart = now;
        }
    }

    /** IO thread: {@code t} is no longer parked. */
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

    /** IO thread, every duty cycle: records progress once a second. */
    void tick(final long now)
    {
        maybeCut(now);
        if (now >= nextProgress)
        {
            nextProgress = now + PROGRESS_NANOS;
            store.progress(restoredTasks + userFinished);
        }
    }

    /** After the threads stopped: drops an unfinished generation and, after a complete run, marks it so. */
    void close(final boolean runComplete)
    {
        try
        {
            if (writer != null)
            {
                writer.abandon();
                writer = null;
            }
            SaveJob j;
            while ((j = writes.pollFirst()) != null)
            {
                if (j.task == null)
                {
                    pool.release(j.buffer);
                }
            }
            if (runComplete)
            {
                store.markComplete();
            }
            else
            {
                store.progress(restoredTasks + userFinished);
            }
            store.close();
        }
        catch (final IOException e)
        {
            System.err.println("spillway: closing the checkpoint store: " + e.getMessage());
        }
    }

    CheckpointReport report(final CheckpointMode mode)
    {
        final long reexec = restored == null ? 0 : Math.min(reexecuteTarget, userFinished);
        final long r = reexecuteNanos;
        return new CheckpointReport(true, mode, policy.describe(), committed, abandoned,
            blockNanosNow(System.nanoTime()) / 1e9, totalNanos / 1e9, bytesWritten, objectsSaved, objectsInherited,
            restored == null ? -1 : restored.cut().generation(), restoredTasks, reexec, restoreSeconds,
            restored == null ? 0 : restored.readSeconds(), restored == null ? 0 : restored.verifySeconds(),
            restored == null || r < 0 ? 0 : r / 1e9, restored == null ? "" : restored.explanation());
    }

    /** A captured object waiting to be written: its own copy, or the object's buffer (then {@code task} holds it). */
    private record SaveJob(DataRef ref, TileBuffer buffer, int size, long version, TaskRecord task)
    {
    }
}
