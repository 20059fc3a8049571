package dev.spillway.kernels;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * The checksum of a run's final data: CRC32C of each result tile, folded in tag order. Two runs agree bit for bit
 * exactly when their checksums agree (up to CRC collisions).
 */
public final class ResultChecksum
{
    private final TreeMap<String, Long> crcByTag = new TreeMap<>();

    /** Records one tile's bytes [0, limit). Thread-safe. */
    public synchronized void add(final String tag, final ByteBuffer bytes)
    {
        final CRC32C crc = new CRC32C();
        crc.update(bytes.duplicate().position(0));
        if (crcByTag.put(tag, crc.getValue()) != null)
        {
            throw new IllegalArgumentException("tile " + tag + " checksummed twice");
        }
    }

    /** @return 16 hex digits folding every tile's tag and CRC in tag order. */
    public synchronized String value()
    {
        long h = 0x9E3779B97F4A7C15L;
        for (final Map.Entry<String, Long> e : crcByTag.entrySet())
        {
            h = mix(h ^ e.getKey().hashCode());
            h = mix(h ^ e.getValue());
        }
        return String.format("%016x", h);
    }

    private static long mix(final long z0)
    {
        long z = z0 + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
