package dev.spillway;

/** Thrown when a task's declared objects can never fit the DRAM budget together. */
public final class WorkingSetTooLargeException extends SpillwayException
{
    private static final long serialVersionUID = 1L;

    /** @param message what happened, naming the task or object. */
    public WorkingSetTooLargeException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened, naming the task or object.
     * @param cause   the underlying failure.
     */
    public WorkingSetTooLargeException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
