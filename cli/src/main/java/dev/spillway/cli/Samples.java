package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Arrays;
import java.util.List;

/** Summaries of repeated measurements. */
final class Samples
{
    private static final double[] T975 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060,
        2.056, 2.052, 2.048, 2.045, 2.042};

    private Samples()
    {
    }

    /** @return the median of {@code values} (the mean of the middle two for an even count). */
    static double median(final double[] values)
    {
        final double[] v = values.clone();
        Arrays.sort(v);
        final int mid = v.length / 2;
        return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    }

    /** @return the median of {@code key} over the figure sets {@code runs}. */
    static double median(final List<JsonNode> runs, final String key)
    {
        return median(runs.stream().mapToDouble(r -> r.get(key).asDouble()).toArray());
    }

    /**
     * @return the standard error of {@code median(a) − median(b)}, approximately: √(π/2)·σ·√(1/|a| + 1/|b|), σ the
     *         pooled sample standard deviation of both around their means (normal errors, the large-sample factor of
     *         a median); NaN with fewer than 2 of either. It has {@code |a| + |b| − 2} degrees of freedom.
     */
    static double medianDifferenceError(final double[] a, final double[] b)
    {
        if (a.length < 2 || b.length < 2)
        {
            return Double.NaN;
        }
        final double pooled = (squaredDeviations(a) + squaredDeviations(b)) / (a.length + b.length - 2);
        return Math.sqrt(Math.PI / 2) * Math.sqrt(pooled) * Math.sqrt(1.0 / a.length + 1.0 / b.length);
    }

    /**
     * @return Student's t at 97.5 % for {@code df} degrees of freedom (a two-sided 95 % interval): tabled to 30, then
     *         the Cornish–Fisher expansion, within 0.001.
     */
    static double studentT975(final int df)
    {
        if (df < 1)
        {
            throw new IllegalArgumentException("degrees of freedom must be at least 1, got " + df);
        }
        if (df <= T975.length)
        {
            return T975[df - 1];
        }
        final double z = 1.959964;
        final double z3 = z * z * z;
        return z + (z3 + z) / (4.0 * df) + (5 * z3 * z * z + 16 * z3 + 3 * z) / (96.0 * df * df);
    }

    private static double squaredDeviations(final double[] values)
    {
        final double mean = Arrays.stream(values).average().orElseThrow();
        return Arrays.stream(values).map(v -> (v - mean) * (v - mean)).sum();
    }

    /** @return the smallest of {@code values}. */
    static double min(final double[] values)
    {
        return Arrays.stream(values).min().orElseThrow();
    }
}
