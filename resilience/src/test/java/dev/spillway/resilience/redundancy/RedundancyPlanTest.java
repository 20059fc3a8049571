package dev.spillway.resilience.redundancy;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Seed 004's eqs. 5-8 in exact arithmetic, and which ranks get ⌈r⌉ replicas. */
class RedundancyPlanTest
{
    private static RedundancyPlan plan(final int ranks, final String r)
    {
        return RedundancyPlan.of(ranks, RedundancyDegree.parse(r));
    }

    @Test
    void eqs5To8MatchExactRationalsForSeededRandomDegrees()
    {
        final SplittableRandom random = new SplittableRandom(16);
        for (int c = 0; c < 2000; c++)
        {
            final long k = random.nextLong(1000, 4001); // r = k/1000, exact
            final int n = random.nextBoolean() ? random.nextInt(1, 200) : random.nextInt(1, 20_000);
            final RedundancyPlan p = RedundancyPlan.of(n, new RedundancyDegree(BigDecimal.valueOf(k, 3)));
            final long floor = k / 1000;
            final long ceil = (k + 999) / 1000;
            final long floorRanks = (ceil * 1000 - k) * n / 1000; // eq. 6: ⌊(⌈r⌉ − r)·N⌋, all terms ≥ 0
            final String what = "r " + p.degree() + ", N " + n;
            assertEquals(floorRanks, p.floorRanks(), what);
            assertEquals(n - floorRanks, p.ceilRanks(), what); // eqs. 5, 7
            assertEquals((n - floorRanks) * ceil + floorRanks * floor, p.processes(), what); // eq. 8
            assertEquals((k * n + 999) / 1000, p.processes(), what + ": N_total = ⌈r·N⌉");
            assertTrue(p.processes() * 1000 >= k * n, what + ": N_total ≥ r·N, not ≤ as the paper says");
            long ceilCount = 0;
            long replicas = 0;
            for (int rank = 0; rank < n; rank++)
            {
                ceilCount += p.hasCeilReplicas(rank) ? 1 : 0;
                replicas += p.replicasOf(rank);
            }
            assertEquals(p.ceilRanks(), ceilCount, what);
            assertEquals(p.processes(), replicas, what);
        }
    }

    @Test
    void ceilRanksAreSpreadEvenlyOverEveryWindow()
    {
        final SplittableRandom random = new SplittableRandom(4);
        for (int c = 0; c < 200; c++)
        {
            final int n = random.nextInt(1, 300);
            final RedundancyPlan p = RedundancyPlan.of(n, new RedundancyDegree(BigDecimal.valueOf(
                random.nextLong(1000, 3001), 3)));
            for (int from = 0; from < n; from++)
            {
                int count = 0;
                for (int to = from; to < n; to++)
                {
                    count += p.hasCeilReplicas(to) ? 1 : 0;
                    final double expected = (double)(to - from + 1) * p.ceilRanks() / n;
                    assertTrue(Math.abs(count - expected) < 1, "r " + p.degree() + ", N " + n + ", ranks " + from +
                        ".." + to + ": " + count + " vs " + expected);
                }
            }
        }
    }

    @Test
    void oneAndAHalfGivesTheEvenRanksAsInThePaper()
    {
        final RedundancyPlan p = plan(128, "1.5");
        for (int rank = 0; rank < 128; rank++)
        {
            assertEquals(rank % 2 == 0 ? 2 : 1, p.replicasOf(rank), "rank " + rank);
        }
        final RedundancyPlan quarter = plan(128, "1.25");
        for (int rank = 0; rank < 128; rank++)
        {
            assertEquals(rank % 4 == 0, quarter.hasCeilReplicas(rank), "rank " + rank);
        }
    }

    @Test
    void r11WithN100Gives90WhereDoublesGive89()
    {
        assertEquals(89, (int)Math.floor((2 - 1.1) * 100), "the trap the exact arithmetic avoids");
        final RedundancyPlan p = plan(100, "1.1");
        assertEquals(90, p.floorRanks());
        assertEquals(10, p.ceilRanks());
        assertEquals(110, p.processes());
        assertEquals(3, (int)Math.floor((3 - 2.6) * 10));
        assertEquals(4, plan(10, "2.6").floorRanks());
    }

    @Test
    void section7BPartitionsForTheExperimentsN128()
    {
        final String[] degrees = {"1", "1.25", "1.5", "1.75", "2", "2.25", "2.5", "2.75", "3"};
        final int[] floorRanks = {0, 96, 64, 32, 0, 96, 64, 32, 0};
        final long[] processes = {128, 160, 192, 224, 256, 288, 320, 352, 384};
        for (int i = 0; i < degrees.length; i++)
        {
            final RedundancyPlan p = plan(128, degrees[i]);
            assertEquals(floorRanks[i], p.floorRanks(), degrees[i]);
            assertEquals(128 - floorRanks[i], p.ceilRanks(), degrees[i]);
            assertEquals(processes[i], p.processes(), degrees[i]);
        }
    }

    @Test
    void integerDegreesReplicateEveryRankAlike()
    {
        for (int r = 1; r <= 3; r++)
        {
            final RedundancyPlan p = plan(7, Integer.toString(r));
            assertEquals(0, p.floorRanks());
            assertEquals(7L * r, p.processes());
            for (int rank = 0; rank < 7; rank++)
            {
                assertEquals(r, p.replicasOf(rank));
            }
        }
    }

    @Test
    void degreesAreParsedExactlyAndCheckedAtLeastOne()
    {
        assertEquals(RedundancyDegree.parse("1.5"), RedundancyDegree.parse("1.50"));
        assertEquals("2", RedundancyDegree.parse("2.0").toString());
        assertEquals("10", RedundancyDegree.parse("10").toString());
        assertEquals(2, RedundancyDegree.parse("1.001").ceil());
        assertEquals(1, RedundancyDegree.parse("1.999").floor());
        for (final String bad : new String[] {"0.9", "0", "-2", "x", "", "1.5x", "3e10"})
        {
            assertThrows(IllegalArgumentException.class, () -> RedundancyDegree.parse(bad), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> plan(0, "2"));
        assertThrows(IllegalArgumentException.class, () -> plan(4, "2").hasCeilReplicas(4));
    }
}
