package dev.spillway.kernels.dense;

import java.util.Random;
import java.util.TreeSet;

/** The matrix rows a verification checks: all of them for small orders, else a fixed random sample. */
final class SampledRows
{
    static final int ALL_ROWS_UP_TO = 1024;
    static final int SAMPLE = 16;

    final int[] rows;

    private SampledRows(final int[] rows)
    {
        this.rows = rows;
    }

    /** @return all rows when n is small, else {@value #SAMPLE} distinct rows drawn in [from, n). */
    static SampledRows of(final int n, final int from, final long seed)
    {
        if (n <= ALL_ROWS_UP_TO)
        {
            final int[] all = new int[n - from];
            for (int i = 0; i < all.length; i++)
            {
                all[i] = from + i;
            }
            return new SampledRows(all);
        }
        final Random random = new Random(seed);
        final TreeSet<Integer> picked = new TreeSet<>();
        while (picked.size() < Math.min(SAMPLE, n - from))
        {
            picked.add(from + random.nextInt(n - from));
        }
        return new SampledRows(picked.stream().mapToInt(Integer::intValue).toArray());
    }

    /** @return whether some sampled row lies in [from, to). */
    boolean touches(final int from, final int to)
    {
        for (final int row : rows)
        {
            if (row >= from && row < to)
            {
                return true;
            }
        }
        return false;
    }

    int count()
    {
        return rows.length;
    }

    String describe(final int n)
    {
        return rows.length == n ? "all " + n + " rows" : rows.length + " sampled rows";
    }
}
