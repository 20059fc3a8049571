package dev.spillway.io;

import java.io.IOException;
import java.nio.file.Files;
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

    /**
     * An upper bound of the disk bytes a store opened with {@code settings} needs to hold a block of each size in
     * {@code blocks} at once. For {@code direct}: every block rounded up to the file system's block size, plus one of
     * the largest for a rewrite (it goes to a fresh extent before the old one is freed) and one per slab for the slab's
     * unusable tail, plus the index. For {@code chronicle}: the map file, allocated whole at open, which holds the
     * blocks if {@code settings} were sized for them. Setting the disk cap to this bound makes the store keep to it.
     *
     * @param kind     which implementation.
     * @param settings where and how big; the directory must exist. The disk cap is not used.
     * @param blocks   payload sizes.
     */
    public static long diskBytesBound(final StoreKind kind, final StoreSettings settings, final int[] blocks)
        throws IOException
    {
        final StoreSettings uncapped = new StoreSettings(settings.dir(), Long.MAX_VALUE, settings.averageBlockBytes(),
            settings.maxBlocks());
        if (kind == StoreKind.CHRONICLE)
        {
            return ChronicleSizing.of(uncapped).fileBytesBound(settings.maxBlocks());
        }
        final int alignment = Math.toIntExact(Files.getFileStore(settings.dir()).getBlockSize());
        long bytes = 0;
        long largest = 0;
        for (final int b : blocks)
        {
            final long aligned = Blocks.alignUp(b, alignment);
            bytes += aligned;
            largest = Math.max(largest, aligned);
        }
        final long slabs = (bytes + largest) / DirectIoStore.slabBytes(uncapped) + 1;
        return bytes + largest * (1 + slabs) + BlockIndex.fileBytesBound(settings.maxBlocks());
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
