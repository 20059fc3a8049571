package dev.spillway.resilience.p2f;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EpochPlanTest
{
    @Test
    void clustersAreContiguousAndStartTwoEpochsApart()
    {
        final EpochPlan plan = EpochPlan.aligned(8, 4, 10);
        final int[] expected = {1, 1, 3, 3, 5, 5, 7, 7};
        for (int r = 0; r < 8; r++)
        {
            assertEquals(expected[r], plan.initialEpoch(r), "rank " + r);
        }
        assertEquals(1 + 2, plan.epoch(0, 29, 0), "two cuts (at 10 and 20) before global index 29");
        assertEquals(7 + 3, plan.epoch(7, 30, 0), "a cut at 30 is before the task at 30");
    }

    @Test
    void independentCutsAdvanceOneEpochPerIntervalWithJitter()
    {
        final EpochPlan plan = EpochPlan.independent(4, 1, 100, 7);
        for (int r = 0; r < 4; r++)
        {
            int previous = plan.epoch(r, 0, 0);
            assertEquals(1, previous);
            boolean offGrid = false;
            for (long seq = 1; seq <= 10_000; seq++)
            {
                final int epoch = plan.epoch(r, 0, seq);
                assertTrue(epoch == previous || epoch == previous + 1, "one cut at a time, rank " + r + " at " + seq);
                offGrid |= epoch > previous && seq % 100 != 0;
                previous = epoch;
            }
            assertTrue(previous >= 1 + 99 && previous <= 1 + 100, "about one cut per 100 tasks: " + previous);
            assertTrue(offGrid, "the cuts are jittered");
        }
    }

    @Test
    void refusesMoreClustersThanRanks()
    {
        assertThrows(IllegalArgumentException.class, () -> EpochPlan.aligned(4, 5, 10));
    }
}
