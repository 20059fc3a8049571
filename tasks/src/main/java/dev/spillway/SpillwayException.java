package dev.spillway;

/** Base of Spillway's unchecked exceptions. */
public class SpillwayException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** @param message what happened. */
    public SpillwayException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened.
     * @param cause   the underlying failure.
     */
    public SpillwayException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
