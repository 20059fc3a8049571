package dev.spillway;

/** Thrown when a task touches an object it did not declare. */
public final class PrivilegeViolationException extends SpillwayException
{
    private static final long serialVersionUID = 1L;

    /** @param message what happened, naming the task or object. */
    public PrivilegeViolationException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened, naming the task or object.
     * @param cause   the underlying failure.
     */
    public PrivilegeViolationException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
