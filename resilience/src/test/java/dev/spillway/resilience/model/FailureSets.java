package dev.spillway.resilience.model;

import java.util.SplittableRandom;
import java.util.function.Predicate;

/** Brute force and Monte Carlo over sets of failed elements, to check the model's bound against. */
final class FailureSets
{
    /** A Monte Carlo estimate of a probability and its standard error. */
    record Estimate(double p, double sigma)
    {
    }

    private FailureSets()
    {
    }

    /** @return the exact fraction of the {@code failed}-subsets of {@code elements} that are catastrophic. */
    static double exact(final int elements, final int failed, final Predicate<boolean[]> catastrophic)
    {
        final long[] counts = new long[2];
        enumerate(new boolean[elements], 0, failed, catastrophic, counts);
        return (double)counts[0] / counts[1];
    }

    /** @return the fraction of {@code samples} random {@code failed}-subsets that are catastrophic, seeded. */
    static Estimate monteCarlo(final int elements, final int failed, final int samples, final long seed,
        final Predicate<boolean[]> catastrophic)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final int[] order = new int[elements];
        for (int i = 0; i < elements; i++)
        {
            order[i] = i;
        }
        long hits = 0;
        for (int s = 0; s < samples; s++)
        {
            final boolean[] down = new boolean[elements];
            for (int i = 0; i < failed; i++) // partial Fisher-Yates: the first `failed` of a random order
            {
                final int j = i + random.nextInt(elements - i);
                final int t = order[i];
                order[i] = order[j];
                order[j] = t;
                down[order[i]] = true;
            }
            hits += catastrophic.test(down) ? 1 : 0;
        }
        final double p = (double)hits / samples;
        return new Estimate(p, Math.sqrt(p * (1 - p) / samples));
    }

    private static void enumerate(final boolean[] down, final int from, final int left,
        final Predicate<boolean[]> catastrophic, final long[] counts)
    {
        if (left == 0)
        {
            counts[0] += catastrophic.test(down) ? 1 : 0;
            counts[1]++;
            return;
        }
        for (int e = from; e <= down.length - left; e++)
        {
            down[e] = true;
            enumerate(down, e + 1, left - 1, catastrophic, counts);
            down[e] = false;
        }
    }
}
