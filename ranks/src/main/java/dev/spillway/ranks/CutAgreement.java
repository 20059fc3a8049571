package dev.spillway.ranks;

import dev.spillway.checkpoint.CheckpointPolicy;
import dev.spillway.checkpoint.Cut;

import java.util.function.LongSupplier;

/**
 * Rank 0's side of an agreed cut ({@link GlobalCheckpoints#agreed}): when the timing policy says a checkpoint is due
 * and the previous agreed cut is globally committed, rank 0 asks every rank for its admission front; each holds its
 * admission (not its submissions) and answers with the global index past the latest task it admitted; the largest is
 * the cut every rank takes, behind its submission front or ahead of it. All on the checkpoint executor.
 */
final class CutAgreement
{
    private final CheckpointPolicy timing;
    private final CutMessages messages;
    private final DistributedSpillway runtime;
    private final LongSupplier globallyCommitted;
    private boolean roundOpen;
    private int counts;
    private long largestCount;
    private long lastDecided;
    private long lastNanos = System.nanoTime();

    /** @param restoredIndex the global cut the job resumed from, or {@link Cut#LOCAL}. */
    CutAgreement(final CheckpointPolicy timing, final CutMessages messages, final DistributedSpillway runtime,
        final LongSupplier globallyCommitted, final long restoredIndex)
    {
        this.timing = timing;
        this.messages = messages;
        this.runtime = runtime;
        this.globallyCommitted = globallyCommitted;
        this.lastDecided = restoredIndex;
    }

    /** A global commit was recorded: the interval runs from now. */
    void globalCommitted()
    {
        lastNanos = System.nanoTime();
    }

    /** Opens a round when the timing policy says a checkpoint is due. */
    void maybePropose()
    {
        if (roundOpen || globallyCommitted.getAsLong() < lastDecided || !timing.due(0, System.nanoTime() - lastNanos))
        {
            return;
        }
        roundOpen = true;
        counts = 0;
        largestCount = runtime.holdForCut();
        messages.sendToOthers(CutMessages.PROPOSE_TAG, 0);
        if (messages.transport().size() == 1)
        {
            decide();
        }
    }

    /** A rank's admission front, reported while it holds admission. */
    void onCount(final long count)
    {
        largestCount = Math.max(largestCount, count);
        if (++counts == messages.transport().size() - 1)
        {
            decide();
        }
    }

    private void decide()
    {
        roundOpen = false;
        final long index = largestCount > lastDecided ? largestCount : Cut.LOCAL;
        if (index != Cut.LOCAL)
        {
            lastDecided = index;
        }
        else
        {
            lastNanos = System.nanoTime();
        }
        messages.sendToOthers(CutMessages.DECIDE_TAG, index);
        runtime.cutAt(index);
    }
}
