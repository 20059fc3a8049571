package dev.spillway.io;

import java.io.IOException;

/** Thrown when the disk or the configured disk cap cannot take a block; the message names the data object. */
public final class StoreFullException extends IOException
{
    private static final long serialVersionUID = 1L;

    /** @param message what happened, naming the data object. */
    public StoreFullException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened, naming the data object.
     * @param cause   the underlying failure.
     */
    public StoreFullException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
