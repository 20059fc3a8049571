package dev.spillway.memory;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ByteUnitsTest
{
    @Test
    void sizesHaveBinaryPrefixesAndThreeSignificantDigits()
    {
        assertEquals("0 B", ByteUnits.format(0));
        assertEquals("1023 B", ByteUnits.format(1023));
        assertEquals("1 KiB", ByteUnits.format(1024));
        assertEquals("32 MiB", ByteUnits.format(32L << 20));
        assertEquals("32.5 MiB", ByteUnits.format(33280L << 10));
        assertEquals("2.56 MiB", ByteUnits.format(2684355));
        assertEquals("742 MiB", ByteUnits.format(778_000_000));
        assertEquals("1020 MiB", ByteUnits.format((1L << 30) - (1L << 20)));
        assertEquals("2 GiB", ByteUnits.format(2L << 30));
        assertEquals("-1.5 KiB", ByteUnits.format(-1536));
    }

    @Test
    void aLeastSizeRoundsUp()
    {
        assertEquals("2.57 MiB", ByteUnits.atLeast(2684355));
        assertEquals("32 MiB", ByteUnits.atLeast(32L << 20));
        assertEquals("100 B", ByteUnits.atLeast(100));
    }

    @Test
    void ratesArePerSecond()
    {
        assertEquals("1.31 GiB/s", ByteUnits.rate(1.31 * (1L << 30)));
        assertEquals("n/a", ByteUnits.rate(Double.NaN));
    }
}
