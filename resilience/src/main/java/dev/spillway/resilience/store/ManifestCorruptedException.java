package dev.spillway.resilience.store;

import java.io.IOException;

/** Thrown when a manifest is torn, truncated or fails its checksum; the message names the file. */
final class ManifestCorruptedException extends IOException
{
    private static final long serialVersionUID = 1L;

    ManifestCorruptedException(final String message)
    {
        super(message);
    }
}
