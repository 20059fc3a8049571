package dev.spillway.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses byte counts such as {@code 4096}, {@code 512m}, {@code 2g} or {@code 4MiB} (binary units). */
final class ByteSize implements ITypeConverter<Long>
{
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(?:([kmgt])(?:i?b)?|b)?",
        Pattern.CASE_INSENSITIVE);
    private static final String UNITS = "kmgt";

    @Override
    public Long convert(final String value)
    {
        final Matcher m = SIZE.matcher(value.trim());
        if (!m.matches())
        {
            throw new TypeConversionException("'" + value + "' is not a size: use bytes or a suffix k, m, g, t " +
                "(e.g. 512m, 2g)");
        }
        final int shift = m.group(2) == null ? 0 : 10 * (UNITS.indexOf(m.group(2).toLowerCase(Locale.ROOT)) + 1);
        try
        {
            final long n = Long.parseLong(m.group(1));
            if (n > Long.MAX_VALUE >> shift)
            {
                throw new NumberFormatException();
            }
            return n << shift;
        }
        catch (final NumberFormatException e)
        {
            throw new TypeConversionException("'" + value + "' is too large");
        }
    }

    /** @return {@code bytes} in the largest binary unit that divides it exactly, e.g. {@code 4 MiB}. */
    static String format(final long bytes)
    {
        int unit = 0;
        long n = bytes;
        while (unit < UNITS.length() && n != 0 && n % 1024 == 0)
        {
            n /= 1024;
            unit++;
        }
        return unit == 0 ? n + " B" : n + " " + Character.toUpperCase(UNITS.charAt(unit - 1)) + "iB";
    }

    /** @return {@code bytes} for people: {@code 97.0 MiB}, {@code 4.2 GiB}, or bytes below a KiB. */
    static String human(final long bytes)
    {
        if (bytes < 1024)
        {
            return bytes + " B";
        }
        final String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        int unit = 0;
        double n = bytes / 1024.0;
        while (n >= 1024 && unit < units.length - 1)
        {
            n /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", n, units[unit]);
    }
}
