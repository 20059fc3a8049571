package dev.spillway;

/** Thrown when a wait timed out; the message says what was awaited. */
public final class StallException extends SpillwayException
{
    private static final long serialVersionUID = 1L;

    /** @param message what happened, naming the task or object. */
    public StallException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened, naming the task or object.
     * @param cause   the underlying failure.
     */
    public StallException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
