package dev.spillway.rdma;

/** An operation did not complete within its bound; the peer may be alive but slow, or never sent what was awaited. */
public final class TransportTimeoutException extends TransportException
{
    private static final long serialVersionUID = 1L;

    private final int rank;

    /**
     * @param rank the peer the operation waited on, or {@link Transport#ANY_SOURCE}.
     * @param operation what timed out.
     * @param timeoutMs the bound that passed.
     */
    public TransportTimeoutException(final int rank, final String operation, final long timeoutMs)
    {
        super(operation + " timed out after " + timeoutMs + " ms waiting on " +
            (rank == Transport.ANY_SOURCE ? "any rank" : "rank " + rank));
        this.rank = rank;
    }

    /** @return the peer waited on, or {@link Transport#ANY_SOURCE}. */
    public int rank()
    {
        return rank;
    }
}
