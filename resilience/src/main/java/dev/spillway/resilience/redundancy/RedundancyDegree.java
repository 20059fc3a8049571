package dev.spillway.resilience.redundancy;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Seed 004's redundancy degree r ≥ 1, the physical processes per logical rank, held exactly as a decimal: in doubles
 * {@code (2 − 1.1)·100} is 89.99999999999999, so eq. 6 would floor it to 89 instead of 90.
 *
 * @param value r, exact.
 */
public record RedundancyDegree(BigDecimal value)
{
    private static final BigDecimal MOST = BigDecimal.valueOf(Integer.MAX_VALUE);

    /** Checks that 1 ≤ r ≤ 2³¹ − 1. */
    public RedundancyDegree
    {
        if (value.compareTo(BigDecimal.ONE) < 0 || value.compareTo(MOST) > 0)
        {
            throw new IllegalArgumentException("the redundancy degree must be at least 1 (and fit an int), got " +
                value.toPlainString());
        }
        value = value.stripTrailingZeros();
    }

    /**
     * @param decimal r as a decimal, such as {@code 1.5}.
     * @throws IllegalArgumentException if it is not a decimal of at least 1.
     */
    public static RedundancyDegree parse(final String decimal)
    {
        try
        {
            return new RedundancyDegree(new BigDecimal(decimal.trim()));
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException("the redundancy degree must be a decimal such as 1.5, got " + decimal);
        }
    }

    /** @return ⌊r⌋. */
    public int floor()
    {
        return value.setScale(0, RoundingMode.FLOOR).intValueExact();
    }

    /** @return ⌈r⌉. */
    public int ceil()
    {
        return value.setScale(0, RoundingMode.CEILING).intValueExact();
    }

    /** @return r as a double, for the model's continuous terms (eq. 1). */
    public double doubleValue()
    {
        return value.doubleValue();
    }

    /** @return r as written, without trailing zeros: {@code 1.5}, {@code 2}. */
    @Override
    public String toString()
    {
        return value.toPlainString();
    }
}
