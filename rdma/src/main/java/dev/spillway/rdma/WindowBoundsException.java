package dev.spillway.rdma;

/** A put, get or atomic reached outside the registered window; refused before anything is sent. */
public final class WindowBoundsException extends IndexOutOfBoundsException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param operation put, get, fetchAndAdd, compareAndSwap.
     * @param window the window's handle.
     * @param offset the requested offset.
     * @param length the requested length.
     */
    public WindowBoundsException(final String operation, final WindowHandle window, final long offset,
        final long length)
    {
        super(operation + " outside window '" + window.name() + "' (id " + window.id() + ") of rank " +
            window.owner() + ": offset " + offset + ", length " + length + ", window size " + window.size());
    }
}
