package dev.spillway.ranks;

import dev.spillway.Spillway;

/**
 * Where this rank's submissions stand against the job's cuts: the global index of the next task (the same on every
 * rank), the index of the next cut, and, while the ranks agree on one, the admission front this rank reported. Every
 * method runs under the runtime's submission lock, which it is given; {@link #hold}, {@link #cutAt} and
 * {@link #release} take it themselves.
 */
final class SubmissionCuts
{
    private final Object lock;
    private final Spillway local;
    private final GlobalCheckpoints checkpoints;
    private final LocalFrontiers frontiers;
    private long globalIndex;
    private long nextCut;
    /** The admission front this rank reported for the cut being agreed: no cut may lie before it. */
    private long heldFront;
    /** The job stopped for a restart: admission is held no more. */
    private volatile boolean released;
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
        this.frontiers = new LocalFrontiers(checkpoints != null && checkpoints.cutsBehindSubmission());
    }

    /**
     * Before a task: cuts if one is due.
     *
     * @return the task's global index.
     */
    long begin()
    {
        cutIfDue();
        return globalIndex++;
    }

    /** A local task, the next one, was submitted for the task at {@code index}. */
    void submitted(final long index, final long seq)
    {
        frontiers.submitted(index, seq);
    }

    /** After a task, too: a rank may submit no further task (the cut after its last). */
    void end()
    {
        cutIfDue();
    }

    /**
     * Holds admission until {@link #cutAt}; submissions go on.
     *
     * @return the admission front as a global index: no local task at or after it was admitted.
     */
    long hold()
    {
        if (released)
        {
            synchronized (lock)
            {
                return globalIndex;
            }
        }
        final long seqFront = local.holdAdmission();
        if (released)
        {
            local.releaseAdmissionHold();
        }
        synchronized (lock)
        {
            // Every local task submitted was admitted: the front is the submission front.
            heldFront = seqFront >= frontiers.nextSeq() ? globalIndex : frontiers.globalFront(seqFront);
            return heldFront;
        }
    }

    /**
     * The ranks agreed to cut at {@code index} ({@code Cut.LOCAL}: no cut), at or after every rank's admission
     * front: behind this rank's submission front, the cut is requested there at once; ahead of it, when submission
     * reaches it. Admission goes on.
     */
    void cutAt(final long index)
    {
        synchronized (lock)
        {
            if (index < 0)
            {
                local.releaseAdmissionHold();
                return;
            }
            if (index < heldFront)
            {
                local.releaseAdmissionHold();
                throw new IllegalStateException("the ranks agreed to cut at global index " + index + ", but this " +
                    "rank had admitted tasks up to global index " + heldFront + ", which it reported");
            }
            if (index >= globalIndex)
            {
                local.releaseAdmissionHold();
                nextCut = index;
                cutIfDue();
                return;
            }
            final long frontier = frontiers.frontierOf(index);
            local.checkpointAt(frontier, index);
            cut(index, frontier);
        }
    }

    /** The job stops for a restart: nothing is held any more. */
    void release()
    {
        released = true;
        local.releaseAdmissionHold();
    }

    private void cutIfDue()
    {
        if (globalIndex != nextCut)
        {
            return;
        }
        local.checkpointHere(globalIndex);
        cut(globalIndex, frontiers.nextSeq());
    }

    /** After a cut was requested at {@code index}, before local task {@code frontier}. */
    private void cut(final long index, final long frontier)
    {
        if (index > checkpoints.restoredIndex())
        {
            protocol.cut(index);
        }
        if (recorder != null)
        {
            recorder.cut(index, frontier);
        }
        frontiers.cutAt(index);
        nextCut = checkpoints.cutAfter(index);
    }
}
