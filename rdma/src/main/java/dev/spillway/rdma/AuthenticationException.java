package dev.spillway.rdma;

/** The rendezvous handshake failed: a peer did not prove knowledge of the job secret. */
public final class AuthenticationException extends TransportException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message who failed to authenticate and where.
     */
    public AuthenticationException(final String message)
    {
        super(message);
    }
}
