package dev.spillway.io;

import java.io.IOException;

/** Thrown when a block fails its checksum or is truncated; the message names the data object. */
public final class BlockCorruptedException extends IOException
{
    private static final long serialVersionUID = 1L;

    /** @param message what happened, naming the data object. */
    public BlockCorruptedException(final String message)
    {
        super(message);
    }

    /**
     * @param message what happened, naming the data object.
     * @param cause   the underlying failure.
     */
    public BlockCorruptedException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}
