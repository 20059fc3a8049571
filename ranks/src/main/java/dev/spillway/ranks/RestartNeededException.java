package dev.spillway.ranks;

import java.util.List;

/**
 * The job lost a rank (or a rank could not write its part of a global checkpoint) while checkpoints were on: this
 * rank stopped, and the whole job must be started again with a higher incarnation, which resumes from the newest
 * global checkpoint. {@code spillway run} exits with {@link #EXIT_STATUS}, and {@code spillway launch --max-restarts}
 * relaunches every rank.
 */
public final class RestartNeededException extends RuntimeException
{
    /** The exit status of a rank that stopped for a restart: EX_TEMPFAIL of sysexits.h. */
    public static final int EXIT_STATUS = 75;

    private final List<Integer> lostRanks;
    private final long detectedMillis;

    RestartNeededException(final String message, final List<Integer> lostRanks, final long detectedMillis)
    {
        super(message);
        this.lostRanks = List.copyOf(lostRanks);
        this.detectedMillis = detectedMillis;
    }

    /** @return the ranks this rank saw lost, in the order it saw them; empty when a checkpoint failed instead. */
    public List<Integer> lostRanks()
    {
        return lostRanks;
    }

    /** @return wall-clock milliseconds when this rank learnt that the job must restart. */
    public long detectedMillis()
    {
        return detectedMillis;
    }
}
