package dev.spillway.resilience.model;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntToDoubleFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Seed 000's eqs. 7-9 against the vectors of design §B.4, brute force and Monte Carlo. */
class ReliabilityModelTest
{
    /** Seed 000 §7.1's TSUBAME2.0 fits, failures per day: nodes, PSUs, edge switches, racks. */
    private static final double[][] TSUBAME_FITS = {{0.30142e-2, 1.3567}, {1.1836e-4, 1.4831},
        {3.9249e-5, 1.5902}, {3.2257e-5, 1.5488}};

    static void assertSixDigits(final double expected, final double actual, final String what)
    {
        assertEquals(expected, Double.parseDouble(String.format(Locale.ROOT, "%.6g", actual)), what);
    }

    private static IntToDoubleFunction fit(final int level)
    {
        return x -> TSUBAME_FITS[level][0] * Math.exp(-TSUBAME_FITS[level][1] * x);
    }

    /** Elements {@code [kG, (k+1)G)} hold group k: disjoint groups, seed 000's worst case when G divides H. */
    private static boolean twoOfOneGroup(final boolean[] down, final int groupSize)
    {
        final boolean[] hit = new boolean[down.length / groupSize];
        for (int e = 0; e < down.length; e++)
        {
            if (down[e])
            {
                if (hit[e / groupSize])
                {
                    return true;
                }
                hit[e / groupSize] = true;
            }
        }
        return false;
    }

    /** @return for disjoint groups, exactly: 1 − C(D, x)·G^x / C(H, x). */
    private static double exactForDisjointGroups(final int elements, final int groupSize, final int failed)
    {
        final int groups = elements / groupSize;
        double spread = 1; // C(D, x)·G^x / C(H, x) as a product of x ratios
        for (int i = 0; i < failed; i++)
        {
            spread *= (double)(groups - i) * groupSize / (elements - i);
        }
        return 1 - Math.max(0, spread);
    }

    @Test
    void eq8GivesTheVectorsToSixDigits()
    {
        assertSixDigits(0.00807207, ReliabilityModel.eq8(1000, 9, 2), "H 1000, |G| 9, x 2 (0.008072)");
        assertSixDigits(0.0242162, ReliabilityModel.eq8(1000, 9, 3), "H 1000, |G| 9, x 3 (0.024216)");
        assertSixDigits(0.0160641, ReliabilityModel.eq8(1000, 17, 2), "H 1000, |G| 17, x 2 (0.016064)");
        assertSixDigits(0.0872727, ReliabilityModel.eq8(100, 9, 2), "H 100, |G| 9, x 2 (0.087273)");
    }

    @Test
    void eq8IsClampedToOneAndZeroBelowTwoFailures()
    {
        assertSixDigits(3.92727, ReliabilityModel.unionBound(100, FatalSets.ofGroups(100, 9), 10), "as printed");
        assertEquals(1.0, ReliabilityModel.eq8(100, 9, 10));
        assertEquals(0.0, ReliabilityModel.eq8(100, 9, 1), "one failure is never catastrophic with m = 1");
        assertEquals(0.0, ReliabilityModel.eq8(100, 9, 0));
        assertEquals(1.0, ReliabilityModel.catastrophicGiven(10, new FatalSets(10, 0), 1), "every element fatal");
        assertEquals(0.3, ReliabilityModel.catastrophicGiven(10, new FatalSets(3, 0), 1), 1e-15);
    }

    @Test
    void eq8EqualsBruteForceAtTwoFailuresAndBoundsItAbove()
    {
        for (final int[] hg : new int[][] {{12, 3}, {12, 4}, {12, 6}, {20, 5}, {18, 9}, {16, 2}})
        {
            final int h = hg[0];
            final int g = hg[1];
            final double exact = FailureSets.exact(h, 2, down -> twoOfOneGroup(down, g));
            assertEquals(exact, ReliabilityModel.eq8(h, g, 2), 1e-12, "H " + h + ", |G| " + g);
            assertEquals(exactForDisjointGroups(h, g, 2), exact, 1e-12, "the closed form, H " + h + ", |G| " + g);
            for (int x = 3; x <= 5; x++)
            {
                final int failed = x;
                final double enumerated = FailureSets.exact(h, x, down -> twoOfOneGroup(down, g));
                assertEquals(exactForDisjointGroups(h, g, x), enumerated, 1e-12, "H " + h + ", x " + x);
                assertTrue(ReliabilityModel.eq8(h, g, failed) >= enumerated, "H " + h + ", |G| " + g + ", x " + x);
            }
        }
    }

    @Test
    void eq8BoundsASeededMonteCarloEstimateFromThreeFailures()
    {
        final int h = 200;
        final int g = 8;
        for (final int x : new int[] {2, 3, 5, 10})
        {
            final FailureSets.Estimate mc = FailureSets.monteCarlo(h, x, 100_000, 1000 + x,
                down -> twoOfOneGroup(down, g));
            final double exact = exactForDisjointGroups(h, g, x);
            assertEquals(exact, mc.p(), 4 * mc.sigma() + 1e-9, "the estimator, x " + x);
            final double bound = ReliabilityModel.eq8(h, g, x);
            if (x == 2)
            {
                assertEquals(bound, mc.p(), 3 * mc.sigma(), "x 2 is exact");
            }
            else
            {
                assertTrue(bound >= mc.p() - 3 * mc.sigma(), "x " + x + ": bound " + bound + " vs " + mc);
                assertTrue(bound > exact, "x " + x + ": a strict bound, " + bound + " vs exact " + exact);
            }
        }
        assertEquals(1.0, ReliabilityModel.eq8(h, g, 30), "clamped where the union bound is 15");
    }

    @Test
    void eq9AddsTheFitsOfUnawareLevelsAndEq8OfAwareOnes()
    {
        final double[] sums = {1.04538e-3, 3.47445e-5, 1.00517e-5, 8.70442e-6}; // 1.045e-3, 3.47e-5, 1.01e-5, 8.70e-6
        for (int level = 0; level < sums.length; level++)
        {
            final double perDay = ReliabilityModel.perDay(List.of(FailureLevel.unaware("l", 1000, fit(level))));
            assertSixDigits(sums[level], perDay, "Σ of fit " + level);
        }
        final int nodes = 1408;
        double nodesByHand = 0;
        for (int x = 1; x <= nodes; x++)
        {
            nodesByHand += fit(0).applyAsDouble(x) * ReliabilityModel.eq8(nodes, 21, x);
        }
        final double assembled = ReliabilityModel.perDay(List.of(FailureLevel.topologyAware("nodes", nodes, 21, fit(0)),
            FailureLevel.unaware("PSUs", 704, fit(1)), FailureLevel.unaware("switches", 176, fit(2)),
            FailureLevel.unaware("racks", 44, fit(3))));
        assertEquals(nodesByHand + sums[1] + sums[2] + sums[3], assembled, assembled * 1e-5);
        assertTrue(nodesByHand > 0 && nodesByHand < sums[0] / 10, "t-aware nodes " + nodesByHand);
    }

    /** Fig. 10c's claims only: seed 000 does not give TSUBAME2.0's H_j, so these counts are assumed. */
    @Test
    void fig10cShapeWithAssumedCounts1408Nodes704Psus176Switches44Racks()
    {
        final int[] counts = {1408, 704, 176, 44};
        final double[] noTopo = new double[3];
        final int[] groupSizes = {9, 17, 21}; // |CH| = 12.5 %, 6.25 % and 5 % of N
        for (int i = 0; i < groupSizes.length; i++)
        {
            noTopo[i] = tsubame(counts, groupSizes[i], 0);
            for (int aware = 1; aware <= 4; aware++)
            {
                final double orders = Math.log10(noTopo[i] / tsubame(counts, groupSizes[i], aware));
                assertTrue(orders >= 1 && orders <= 3, "|G| " + groupSizes[i] + ", t-aware to level " + aware +
                    ": " + orders + " orders below no-topo");
            }
        }
        assertEquals(noTopo[0], noTopo[1], 0, "no-topo does not depend on |CH|");
        assertEquals(noTopo[0], noTopo[2], 0, "no-topo does not depend on |CH|");
        final double nodesOverSwitches = tsubame(counts, 21, 1) / tsubame(counts, 21, 3);
        assertTrue(nodesOverSwitches > 3 && nodesOverSwitches < 5, "≈ 4 at |CH| = 5 % N: " + nodesOverSwitches);
    }

    /** @return eq. 9 with levels 1..aware topology-aware, the rest not. */
    private static double tsubame(final int[] counts, final int groupSize, final int aware)
    {
        final String[] names = {"nodes", "PSUs", "switches", "racks"};
        final List<FailureLevel> levels = new ArrayList<>();
        for (int j = 0; j < counts.length; j++)
        {
            levels.add(j < aware ? FailureLevel.topologyAware(names[j], counts[j], groupSize, fit(j)) :
                FailureLevel.unaware(names[j], counts[j], fit(j)));
        }
        return ReliabilityModel.perDay(levels);
    }

    @Test
    void independentFailuresAddUpToTheFailureRate()
    {
        final IndependentFailures f = new IndependentFailures(1000, 86_400 * 365.0, 3600);
        double total = 0;
        for (int x = 1; x <= 1000; x++)
        {
            total += f.applyAsDouble(x);
        }
        assertEquals(1000 / 365.0, f.perDay(), 1e-12);
        assertEquals(f.perDay(), total, f.perDay() * 1e-9);
        final double p = -Math.expm1(-3600 / (86_400 * 365.0));
        assertEquals(f.perDay() * 999 * p * Math.pow(1 - p, 998), f.applyAsDouble(2), f.applyAsDouble(2) * 1e-9,
            "pairs: a failure and one of the 999 others in its hour");
        assertEquals(0.0, f.applyAsDouble(0));
        assertEquals(0.0, f.applyAsDouble(1001));
        final IndependentFailures never = new IndependentFailures(4, 100, 0);
        assertEquals(never.perDay(), never.applyAsDouble(1), 1e-12, "no window: every failure alone");
        assertEquals(0.0, never.applyAsDouble(2));
    }
}
