package dev.spillway.io;

import java.io.IOException;
import java.nio.file.Path;

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
     */
    public static Store open(final StoreKind kind, final StoreSettings settings) throws IOException
    {
        return switch (kind)
        {
            case DIRECT -> new DirectIoStore(settings);
            case CHRONICLE -> new ChronicleStore(settings);
        };
    }

    /**
     * Removes every store directory this process created under {@code dir}, open ones included: for a process that
     * is about to exit without closing its stores (an interrupted run). A store still open must not be used after.
     *
     * @param dir the parent directory given in {@link StoreSettings#dir()}.
     */
    public static void removeOwn(final Path dir) throws IOException
    {
        StoreDirectory.removeOwn(dir);
    }
}
