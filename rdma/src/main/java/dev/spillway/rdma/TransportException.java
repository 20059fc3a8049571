package dev.spillway.rdma;

/** A transport operation failed; the message names the rank and the operation. */
public class TransportException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, naming the rank and the operation.
     */
    public TransportException(final String message)
    {
        super(message);
    }

    /**
     * @param message what failed, naming the rank and the operation.
     * @param cause the underlying error.
     */
    public TransportException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
