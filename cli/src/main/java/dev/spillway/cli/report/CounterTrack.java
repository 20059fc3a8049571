package dev.spillway.cli.report;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One counter of a Chrome trace ({@code "ph":"C"} events of one name), in time order: each numeric arg is a series,
 * a step function whose value holds from its sample until the next one. A series missing from a sample keeps its
 * last value (0 before its first).
 */
final class CounterTrack
{
    final String name;
    private double[] times = new double[64];
    private final Map<String, double[]> series = new LinkedHashMap<>();
    private int size;

    CounterTrack(final String name)
    {
        this.name = name;
    }

    void add(final double ts, final Map<String, Object> args)
    {
        if (size == times.length)
        {
            times = Arrays.copyOf(times, size * 2);
            series.replaceAll((k, v) -> Arrays.copyOf(v, size * 2));
        }
        for (final Map.Entry<String, Object> e : args.entrySet())
        {
            if (e.getValue() instanceof Double)
            {
                series.computeIfAbsent(e.getKey(), k -> new double[times.length]);
            }
        }
        times[size] = ts;
        for (final Map.Entry<String, double[]> e : series.entrySet())
        {
            final double[] values = e.getValue();
            values[size] = args.get(e.getKey()) instanceof Double v && Double.isFinite(v) ? v :
                size > 0 ? values[size - 1] : 0;
        }
        size++;
    }

    int size()
    {
        return size;
    }

    double time(final int sample)
    {
        return times[sample];
    }

    /** @return the series' value at {@code sample}; 0 for a series this counter lacks. */
    double value(final String name, final int sample)
    {
        final double[] values = series.get(name);
        return values == null ? 0 : values[sample];
    }

    /** @return the value of the last sample, or NaN without samples. */
    double last(final String name)
    {
        return size == 0 ? Double.NaN : value(name, size - 1);
    }

    /** @return the largest value of the series. */
    double max(final String name)
    {
        double max = 0;
        for (int i = 0; i < size; i++)
        {
            max = Math.max(max, value(name, i));
        }
        return max;
    }

    /** @return the series' time-weighted mean in each of {@code buckets} equal buckets of [t0, t1); 0 where none. */
    double[] means(final String name, final double t0, final double t1, final int buckets)
    {
        final double[] out = new double[buckets];
        final double width = (t1 - t0) / buckets;
        for (int i = 0; i + 1 < size; i++)
        {
            final double v = value(name, i);
            final double s = Math.max(times[i], t0);
            final double e = Math.min(times[i + 1], t1);
            for (int b = first(s, t0, width, buckets); e > s && b <= last(e, t0, width, buckets); b++)
            {
                out[b] += v * Math.max(0, Math.min(e, t0 + (b + 1) * width) - Math.max(s, t0 + b * width)) / width;
            }
        }
        return out;
    }

    /**
     * @return for each of {@code buckets} equal buckets of [t0, t1), the sample holding there whose {@code series}
     *         add up to the most, or -1 where no sample holds.
     */
    int[] peaks(final List<String> series, final double t0, final double t1, final int buckets)
    {
        final int[] out = new int[buckets];
        Arrays.fill(out, -1);
        final double[] best = new double[buckets];
        final double width = (t1 - t0) / buckets;
        for (int i = 0; i + 1 < size; i++)
        {
            double sum = 0;
            for (final String name : series)
            {
                sum += value(name, i);
            }
            final double s = Math.max(times[i], t0);
            final double e = Math.min(times[i + 1], t1);
            for (int b = first(s, t0, width, buckets); e > s && b <= last(e, t0, width, buckets); b++)
            {
                if (out[b] < 0 || sum > best[b])
                {
                    out[b] = i;
                    best[b] = sum;
                }
            }
        }
        return out;
    }

    private static int first(final double s, final double t0, final double width, final int buckets)
    {
        return Math.min(buckets - 1, (int)((s - t0) / width));
    }

    private static int last(final double e, final double t0, final double width, final int buckets)
    {
        return Math.min(buckets - 1, (int)((e - t0) / width));
    }

    /** @return the time-weighted mean of the series over [from, to); NaN for an empty interval. */
    double mean(final String name, final double from, final double to)
    {
        return to > from ? means(name, from, to, 1)[0] : Double.NaN;
    }
}
