package dev.spillway.resilience.store;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** The 64-bit block checksum is two independent codes, and each alone catches every single-bit flip. */
class BlockChecksumTest
{
    @Test
    void lowHalfIsCrc32cAndHighHalfIsCrc32()
    {
        final byte[] bytes = Fixture.bytes(1, 10_000);
        final CRC32C crc32c = new CRC32C();
        crc32c.update(bytes);
        final CRC32 crc32 = new CRC32();
        crc32.update(bytes);
        final long sum = new BlockChecksum().of(ByteBuffer.wrap(bytes));
        assertEquals(crc32c.getValue(), sum & 0xFFFF_FFFFL);
        assertEquals(crc32.getValue(), sum >>> 32);
        assertEquals(String.format("crc32c=%08x crc32=%08x", crc32c.getValue(), crc32.getValue()),
            BlockChecksum.describe(sum));
    }

    @Test
    void everySingleBitFlipChangesBothHalves()
    {
        final ByteBuffer buffer = Fixture.aligned(Fixture.bytes(2, 4096));
        final BlockChecksum checksum = new BlockChecksum();
        final long clean = checksum.of(buffer);
        for (int bit = 0; bit < 4096 * 8; bit++)
        {
            final int at = bit >>> 3;
            buffer.put(at, (byte)(buffer.get(at) ^ 1 << (bit & 7)));
            final long flipped = checksum.of(buffer);
            assertNotEquals(clean & 0xFFFF_FFFFL, flipped & 0xFFFF_FFFFL, "CRC32C, bit " + bit);
            assertNotEquals(clean >>> 32, flipped >>> 32, "CRC32, bit " + bit);
            buffer.put(at, (byte)(buffer.get(at) ^ 1 << (bit & 7)));
        }
        assertEquals(clean, checksum.of(buffer));
    }
}
