package dev.spillway.ranks;

import dev.spillway.Spillway;

/**
 * Where this rank's submissions stand against the job's cuts: the global index of the next task (the same on every
 * rank), the index of the next cut, and whether submissions are held while the ranks agree on one. Every method runs
 * under the runtime's submission lock, which it is given; {@link #hold}, {@link #cutAt} and {@link #release} take it
 * themselves.
 */
final class SubmissionCuts
{
    private final Object lock;
    private final Spillway local;
    private final GlobalCheckpoints checkpoints;
    private long globalIndex;
    private long nextCut;
    private boolean held;
    private boolean released;
    /** Null for none. */
    private final DistributedSpillway.Recorder recorder;

    private final RankProtocol protocol;

    /**
     * @param checkpoints the job's checkpoints, or null: then no cut is ever requested.
     * @param protocol    told of every cut after the one the run resumed from.
     */
    SubmissionCuts(final Object lock, final Spillway local, final GlobalCheckpoints checkpoints,
        final RankProtocol protocol, final DistributedSpillway.Recorder recorder)
    {
        this.protocol = protocol;
        this.recorder = recorder;
        this.lock = lock;
        this.local = local;
        this.checkpoints = checkpoints;
        this.nextCut = checkpoints == null ? Long.MAX_VALUE : checkpoints.firstCut();
    }

    /**
     * Before a task: waits while submissions are held, cuts if one is due.
     *
     * @return the task's global index.
     */
    long begin()
    {
        waitWhileHeld();
        cutIfDue();
        return globalIndex++;
    }

    /** After a task, too: a rank may submit no further task (the cut after its last). */
    void end()
    {
        cutIfDue();
    }

    /**
     * Holds further submissions until {@link #cutAt}.
     *
     * @return how many tasks were submitted so far.
     */
    long hold()
    {
        synchronized (lock)
        {
            held = !released;
            return globalIndex;
        }
    }

    /** The ranks agreed to cut at {@code index} ({@code Cut.LOCAL}: no cut); submissions go on. */
    void cutAt(final long index)
    {
        synchronized (lock)
        {
            held = false;
            lock.notifyAll();
            if (index >= 0)
            {
                if (index < globalIndex)
                {
                    throw new IllegalStateException("the ranks agreed to cut at global index " + index + ", but " +
                        "this rank had submitted " + globalIndex + " tasks: it submitted while held");
                }
                nextCut = index;
                cutIfDue();
            }
        }
    }

    /** The job stops for a restart: nothing is held any more. */
    void release()
    {
        synchronized (lock)
        {
            released = true;
            held = false;
            lock.notifyAll();
        }
    }

    private void cutIfDue()
    {
        if (globalIndex != nextCut)
        {
            return;
        }
        local.checkpointHere(globalIndex);
        if (globalIndex > checkpoints.restoredIndex())
        {
            protocol.cut(globalIndex);
        }
        if (recorder != null)
        {
            recorder.cut(globalIndex);
        }
        nextCut = checkpoints.cutAfter(globalIndex);
    }

    /** Waits while the ranks agree on a cut (one round trip to rank 0). */
    private void waitWhileHeld()
    {
        boolean interrupted = false;
        while (held)
        {
            try
            {
                lock.wait();
            }
            catch (final InterruptedException e)
            {
                interrupted = true;
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }
}
