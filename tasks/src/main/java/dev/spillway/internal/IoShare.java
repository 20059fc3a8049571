package dev.spillway.internal;

/**
 * Shares the IO thread between checkpoint writes and out-of-core transfers by bytes: while both wait, checkpoint
 * writes get {@code share} of the bytes moved. Bytes moved while only one kind waits do not count. IO thread only.
 */
final class IoShare
{
    private final double share;
    /** Bytes each kind moved while the other waited. */
    private long checkpointBytes;
    private long transferBytes;

    /** @param share the fraction of contended bytes that checkpoint writes get, in [0, 1]. */
    IoShare(final double share)
    {
        this.share = share;
    }

    /** @return whether a checkpoint write may go next, before waiting transfers if any. */
    boolean checkpointTurn(final boolean transfersWaiting)
    {
        return !transfersWaiting || checkpointBytes * (1 - share) <= transferBytes * share;
    }

    /** A transfer of {@code bytes} went while checkpoint writes waited. */
    void transferred(final int bytes)
    {
        transferBytes += bytes;
    }

    /** A checkpoint write of {@code bytes} went while transfers waited. */
    void checkpointWrote(final int bytes)
    {
        checkpointBytes += bytes;
    }
}
