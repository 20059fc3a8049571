package dev.spillway.resilience.store;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

/**
 * The 64-bit checksum of a checkpoint block: CRC32C in the low 32 bits and CRC32 (a different polynomial, computed
 * independently over the same bytes) in the high 32 bits, so a corruption has to defeat two unrelated codes.
 * Both are hardware-assisted on x86 and ARM.
 */
final class BlockChecksum
{
    private final CRC32C crc32c = new CRC32C();
    private final CRC32 crc32 = new CRC32();

    /** Starts a new checksum. */
    void reset()
    {
        crc32c.reset();
        crc32.reset();
    }

    /** Adds {@code src}'s bytes from position to limit; {@code src} is left unchanged. */
    void update(final ByteBuffer src)
    {
        crc32c.update(src.duplicate());
        crc32.update(src.duplicate());
    }

    /** @return the checksum of the bytes added since {@link #reset()}. */
    long value()
    {
        return crc32.getValue() << 32 | crc32c.getValue();
    }

    /** @return the checksum of {@code src}'s bytes from position to limit; {@code src} is left unchanged. */
    long of(final ByteBuffer src)
    {
        reset();
        update(src);
        return value();
    }

    /** @return {@code checksum} for people: both halves, named. */
    static String describe(final long checksum)
    {
        return String.format("crc32c=%08x crc32=%08x", checksum & 0xFFFF_FFFFL, checksum >>> 32);
    }
}
