package dev.spillway;

/** Thrown when a task threw, could not get its data, or was cancelled; the message names the task. */
public final class TaskFailedException extends SpillwayException
{
    private static final long serialVersionUID = 1L;

    /** @param message what happened, naming the task or object. */
    public TaskFailedException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened, naming the task or object.
     * @param cause   the underlying failure.
     */
    public TaskFailedException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
