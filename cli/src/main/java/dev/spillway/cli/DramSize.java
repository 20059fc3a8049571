package dev.spillway.cli;

import dev.spillway.memory.ByteUnits;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A DRAM budget: bytes ({@code 512m}) or a percentage of the kernel's data ({@code 25%}, {@code 12.5%}).
 *
 * @param bytes   the absolute budget, when no percentage was given.
 * @param percent the percentage of the data, or NaN.
 */
record DramSize(long bytes, double percent)
{
    /** @return the budget in bytes for {@code dataBytes} of data. */
    long of(final long dataBytes)
    {
        return Double.isNaN(percent) ? bytes : (long)Math.ceil(dataBytes * percent / 100.0);
    }

    @Override
    public String toString()
    {
        return Double.isNaN(percent) ? ByteUnits.format(bytes) : trim(percent) + "%";
    }

    static String trim(final double percent)
    {
        return percent == Math.rint(percent) ? Long.toString((long)percent) : Double.toString(percent);
    }

    /** Parses {@code BYTES} or {@code PCT%}. */
    static final class Converter implements ITypeConverter<DramSize>
    {
        @Override
        public DramSize convert(final String value)
        {
            final String v = value.trim();
            if (v.endsWith("%"))
            {
                final double p;
                try
                {
                    p = Double.parseDouble(v.substring(0, v.length() - 1));
                }
                catch (final NumberFormatException e)
                {
                    throw new TypeConversionException("'" + value + "' is not a percentage such as 25% or 12.5%");
                }
                if (!(p > 0 && p <= 100))
                {
                    throw new TypeConversionException("'" + value + "': the percentage must be in (0, 100]");
                }
                return new DramSize(0, p);
            }
            return new DramSize(new ByteSize().convert(v), Double.NaN);
        }
    }
}
