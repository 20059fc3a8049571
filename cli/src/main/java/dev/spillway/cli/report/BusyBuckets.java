package dev.spillway.cli.report;

/** Busy time of one lane per colour class and per equal-width time bucket. */
final class BusyBuckets
{
    private BusyBuckets()
    {
    }

    /**
     * @return busy microseconds, indexed [class][bucket], of the spans of {@code lane} clipped to [t0, t1) split into
     *         {@code buckets} equal buckets.
     */
    static double[][] of(final Lane lane, final int[] classes, final int classCount, final double t0, final double t1,
        final int buckets)
    {
        final double[][] busy = new double[classCount][buckets];
        final double width = (t1 - t0) / buckets;
        for (int i = 0; i < lane.size; i++)
        {
            final double s = Math.max(lane.start[i], t0);
            final double e = Math.min(lane.end[i], t1);
            if (e <= s)
            {
                continue;
            }
            final double[] row = busy[classes[i]];
            final int first = Math.min(buckets - 1, (int)((s - t0) / width));
            final int last = Math.min(buckets - 1, (int)((e - t0) / width));
            if (first == last)
            {
                row[first] += e - s;
                continue;
            }
            row[first] += t0 + (first + 1) * width - s;
            for (int b = first + 1; b < last; b++)
            {
                row[b] += width;
            }
            row[last] += e - (t0 + last * width);
        }
        return busy;
    }

    /** @return per bucket, the busy fraction summed over {@code fromClass} until {@code toClass} (exclusive). */
    static double[] fraction(final double[][] busy, final int fromClass, final int toClass, final double bucketWidth)
    {
        final int buckets = busy.length == 0 ? 0 : busy[0].length;
        final double[] f = new double[buckets];
        for (int c = fromClass; c < toClass; c++)
        {
            for (int b = 0; b < buckets; b++)
            {
                f[b] += busy[c][b] / bucketWidth;
            }
        }
        for (int b = 0; b < buckets; b++)
        {
            f[b] = Math.min(1.0, f[b]);
        }
        return f;
    }
}
