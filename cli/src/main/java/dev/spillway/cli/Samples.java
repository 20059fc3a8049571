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

    /** @return the smallest of {@code values}. */
    static double min(final double[] values)
    {
        return Arrays.stream(values).min().orElseThrow();
    }
}
