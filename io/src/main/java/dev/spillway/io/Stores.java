package dev.spillway.io;

import java.io.IOException;

/** Opens {@link Store}s. */
public final class Stores
{
    private Stores()
    {
    }

    /**
     * Opens a fresh, empty store in a new subdirectory of {@code settings.dir()}, first removing the subdirectories
     * that stores of dead processes left behind.
     *
     * @param kind     which implementation.
     * @param settings where and how big.
     * @return the open store; close it to remove its files.
     * @throws IllegalArgumentException if the disk cap cannot hold even the store's index (direct) or one average
     *                                  block (chronicle).
     * @throws StoreFullException       if the disk has no room for the store's preallocated files.
     * @throws IOException              if the directory or the store's files cannot be created.
     * @throws IllegalStateException    if the JVM lacks a flag of {@link JvmAccess#FLAGS}.
     */
    public static Store open(final StoreKind kind, final StoreSettings settings) throws IOException
    {
        JvmAccess.require(kind);
        return switch (kind)
        {
            case DIRECT -> new DirectIoStore(settings);
            case CHRONICLE -> new ChronicleStore(settings);
        };
    }
}
