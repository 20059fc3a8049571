package dev.spillway.memory;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * The one way Spillway prints sizes and rates: binary prefixes, three significant digits ({@code 512 B},
 * {@code 33.6 MiB}, {@code 778 MiB}, {@code 2.5 GiB}, {@code 1.31 GiB/s}). Exact sizes print without a fraction
 * ({@code 32 MiB}).
 */
public final class ByteUnits
{
    private static final String[] PREFIXES = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    private static final MathContext THREE_DIGITS = new MathContext(3, RoundingMode.HALF_EVEN);
    private static final MathContext THREE_DIGITS_UP = new MathContext(3, RoundingMode.CEILING);

    private ByteUnits()
    {
    }

    /** @return {@code bytes} with a binary prefix and three significant digits, e.g. {@code 33.6 MiB}. */
    public static String format(final long bytes)
    {
        return scaled(bytes, "", THREE_DIGITS);
    }

    /** @return {@code bytes} like {@link #format}, rounded up: for a least size, which must not print smaller. */
    public static String atLeast(final long bytes)
    {
        return scaled(bytes, "", THREE_DIGITS_UP);
    }

    /** @return {@code bytesPerSecond} like {@link #format}, per second, e.g. {@code 1.31 GiB/s}. */
    public static String rate(final double bytesPerSecond)
    {
        return Double.isFinite(bytesPerSecond) ? scaled(bytesPerSecond, "/s", THREE_DIGITS) : "n/a";
    }

    private static String scaled(final double value, final String suffix, final MathContext digits)
    {
        double n = Math.abs(value);
        int prefix = 0;
        while (n >= 1024 && prefix < PREFIXES.length - 1)
        {
            n /= 1024;
            prefix++;
        }
        final BigDecimal shown = prefix == 0 ? BigDecimal.valueOf(Math.round(n)) :
            new BigDecimal(n).round(digits).stripTrailingZeros();
        return (value < 0 ? "-" : "") + shown.toPlainString() + " " + PREFIXES[prefix] + suffix;
    }
}
