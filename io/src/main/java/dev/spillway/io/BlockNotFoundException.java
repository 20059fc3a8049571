package dev.spillway.io;

import java.io.IOException;

/** Thrown when no block was ever written for the tag; the message names the data object. */
public final class BlockNotFoundException extends IOException
{
    private static final long serialVersionUID = 1L;

    /** @param message what happened, naming the data object. */
    public BlockNotFoundException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened, naming the data object.
     * @param cause   the underlying failure.
     */
    public BlockNotFoundException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
