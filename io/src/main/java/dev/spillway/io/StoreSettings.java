package dev.spillway.io;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How to open a {@link Store}.
 *
 * @param dir               parent directory; each open store creates and owns its own {@code spillway-*} subdirectory.
 * @param diskCapBytes      the most disk space the store may occupy, in bytes, counting every file it creates.
 * @param averageBlockBytes the expected payload size of a block (a tile), used to size slabs and Chronicle maps.
 * @param maxBlocks         the expected largest number of blocks held at once, used to size indexes and maps.
 */
public record StoreSettings(Path dir, long diskCapBytes, int averageBlockBytes, int maxBlocks)
{
    /**
     * Settings, without a disk cap, for a store that must be able to hold a block of each size in {@code blocks} at
     * once: the average block is their mean, and a quarter more blocks than given (plus 16) leave room for
     * per-block rounding and for a block rewritten while its old copy exists.
     *
     * @throws IllegalArgumentException if {@code blocks} is empty or holds a size that is not positive.
     */
    public static StoreSettings forBlocks(final Path dir, final int[] blocks)
    {
        long sum = 0;
        for (final int b : blocks)
        {
            if (b <= 0)
            {
                throw new IllegalArgumentException("block sizes must be positive, got " + b);
            }
            sum += b;
        }
        if (blocks.length == 0)
        {
            throw new IllegalArgumentException("no block sizes given");
        }
        final int average = Math.toIntExact((sum + blocks.length - 1) / blocks.length);
        return new StoreSettings(dir, Long.MAX_VALUE, average, Math.addExact(blocks.length, blocks.length / 4 + 16));
    }

    /** Validates the settings. */
    public StoreSettings
    {
        Objects.requireNonNull(dir, "dir");
        if (diskCapBytes <= 0)
        {
            throw new IllegalArgumentException("diskCapBytes must be positive: " + diskCapBytes);
        }
        if (averageBlockBytes <= 0)
        {
            throw new IllegalArgumentException("averageBlockBytes must be positive: " + averageBlockBytes);
        }
        if (maxBlocks <= 0)
        {
            throw new IllegalArgumentException("maxBlocks must be positive: " + maxBlocks);
        }
    }
}
