package dev.spillway.rdma;

/** A peer rank died, became unreachable or closed its transport; every operation towards it fails with this. */
public final class PeerFailedException extends TransportException
{
    private static final long serialVersionUID = 1L;

    private final int rank;

    /**
     * @param rank the peer that was lost.
     * @param operation what was waiting on it.
     * @param reason why the peer is considered lost.
     */
    public PeerFailedException(final int rank, final String operation, final String reason)
    {
        super(operation + " failed: rank " + rank + " is lost (" + reason + ")");
        this.rank = rank;
    }

    /** @return the lost peer. */
    public int rank()
    {
        return rank;
    }
}
