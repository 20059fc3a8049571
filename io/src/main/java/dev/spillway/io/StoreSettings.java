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
