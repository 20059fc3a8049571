package dev.spillway.resilience.model;

import java.util.List;

/**
 * Seed 000's catastrophic-failure model (§5.2, m = 1, levels independent). Given that {@code x} of a level's {@code H}
 * elements fail at once, uniformly at random, the probability that they include a fatal set is bounded by the union
 * bound over the fatal sets, clamped to 1:
 * <pre>
 *   P(cf | x) = min(1, singles·x/H + pairs·x(x−1)/(H(H−1)))
 * </pre>
 * With seed 000's {@code pairs = D·C(|G|, 2)} and no singles this is eq. 8 ({@code C(H−2, x−2)/C(H, x) =
 * x(x−1)/(H(H−1))}); with the pairs of an actual buddy placement (mutual pairs N/2, ring N) it is the
 * placement-aware variant. Eq. 8 as printed is not clamped and exceeds 1 (H = 100, |G| = 9, x = 10 gives 3.93).
 * It is exact at x = 2 when no element is fatal alone, and an upper bound otherwise.
 */
public final class ReliabilityModel
{
    private ReliabilityModel()
    {
    }

    /** @return the union bound over {@code fatal}, not clamped: the expected number of fatal sets that failed. */
    public static double unionBound(final int elements, final FatalSets fatal, final int failed)
    {
        if (failed < 0 || failed > elements)
        {
            throw new IllegalArgumentException(failed + " failed elements of " + elements);
        }
        final double singles = (double)fatal.singles() * failed / elements;
        final double pairs = failed < 2 ? 0 :
            (double)fatal.pairs() * failed * (failed - 1) / ((double)elements * (elements - 1));
        return singles + pairs;
    }

    /** @return the probability that {@code failed} random elements of {@code elements} include a fatal set (bound). */
    public static double catastrophicGiven(final int elements, final FatalSets fatal, final int failed)
    {
        return Math.min(1, unionBound(elements, fatal, failed));
    }

    /** Eq. 8, clamped: {@code min(1, D·C(|G|,2)·C(H−2, x−2)/C(H, x))} with {@code D = ⌈H/|G|⌉}. */
    public static double eq8(final int elements, final int groupSize, final int failed)
    {
        return catastrophicGiven(elements, FatalSets.ofGroups(elements, groupSize), failed);
    }

    /** Eqs. 7 and 9: {@code Σ_j Σ_{x=1..H_j} P_j(x)·P_j(cf | x)}, catastrophic failures per day. */
    public static double perDay(final List<FailureLevel> levels)
    {
        double sum = 0;
        for (final FailureLevel level : levels)
        {
            for (int x = 1; x <= level.elements(); x++)
            {
                sum += level.failuresPerDay().applyAsDouble(x) * level.catastrophicGiven().applyAsDouble(x);
            }
        }
        return sum;
    }
}
