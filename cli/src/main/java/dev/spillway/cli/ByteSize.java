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
}
