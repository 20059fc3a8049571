package dev.spillway.resilience.p2f;

import java.util.Arrays;

/**
 * A checkpoint taken and not yet committed: the epoch it opens and the protocol state at its cut. It may commit
 * once every send ahead of it is acknowledged ({@link PastToFuture#mayCommit}).
 */
public final class EpochCut
{
    final int epoch;
    final int phase;
    final long[] nextSsn;
    final InChannel[] in;

    EpochCut(final int epoch, final int phase, final long[] nextSsn, final InChannel[] in)
    {
        this.epoch = epoch;
        this.phase = phase;
        this.nextSsn = nextSsn;
        this.in = in;
    }

    /** @return the epoch this checkpoint opens. */
    public int epoch()
    {
        return epoch;
    }

    /**
     * @param target a rank.
     * @return the ssn of the first transfer to {@code target} after the cut.
     */
    public long nextSsn(final int target)
    {
        return nextSsn[target];
    }

    @Override
    public String toString()
    {
        return "cut opening epoch " + epoch + " at ssns " + Arrays.toString(nextSsn);
    }
}
