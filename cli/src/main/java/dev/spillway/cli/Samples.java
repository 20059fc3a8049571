package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Arrays;
import java.util.List;

/** Summaries of repeated measurements. */
final class Samples
{
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
     * @return the standard error of {@code median(a) − median(b)}: 1.2533·σ·√(1/|a| + 1/|b|), σ the pooled sample
     *         standard deviation of both around their means (normal errors assumed); NaN with fewer than 2 of
     *         either.
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
