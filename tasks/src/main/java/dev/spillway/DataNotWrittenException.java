package dev.spillway;

/** Thrown when a task reads an object that no earlier task wrote. */
public final class DataNotWrittenException extends SpillwayException
{
    private static final long serialVersionUID = 1L;

    /** @param message what happened, naming the task or object. */
    public DataNotWrittenException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened, naming the task or object.
     * @param cause   the underlying failure.
     */
    public DataNotWrittenException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
