package dev.spillway.cli;

import dev.spillway.ranks.TransferSchedule;
import dev.spillway.resilience.p2f.EpochPlan;
import dev.spillway.resilience.p2f.ScheduleAnalysis;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The schedule analysis against the numbers seed 001 and the design note derive (§A.8). */
class P2fScheduleBenchTest
{
    @Test
    void theTransposeLogsExactlyTheUpwardShareOfAllToAll()
    {
        for (final int ranks : new int[] {4, 8, 16})
        {
            final TransferSchedule schedule = P2fScheduleBench.transpose(ranks, 3);
            for (final int clusters : new int[] {1, 2, 4})
            {
                final ScheduleAnalysis.Figures f = new ScheduleAnalysis(schedule,
                    EpochPlan.aligned(ranks, clusters, schedule.submissions() / 5)).figures(5);
                final double expected = ranks * (clusters - 1.0) / (2.0 * clusters * (ranks - 1.0));
                assertEquals(expected, f.loggedShare(), 1e-12, ranks + " ranks, " + clusters + " clusters");
            }
        }
    }

    @Test
    void alignedCutsNeverRollBackMoreThanTheClusterBound()
    {
        for (final String kernel : List.of("lu", "stencil", "gemm", "transpose"))
        {
            for (final int ranks : new int[] {4, 8})
            {
                final TransferSchedule schedule = P2fScheduleBench.schedule(kernel, ranks, 2, 5);
                for (final int clusters : new int[] {2, 4})
                {
                    final ScheduleAnalysis.Figures f = new ScheduleAnalysis(schedule,
                        EpochPlan.aligned(ranks, clusters, Math.max(1, schedule.submissions() / 5))).figures(8);
                    assertTrue(f.meanRolledBack() <= (clusters + 1) / (2.0 * clusters) + 0.03,
                        kernel + " on " + ranks + " ranks, " + clusters + " clusters: " + f);
                    assertTrue(f.meanRolledBack() >= 1.0 / ranks, "the failed rank itself rolls back: " + f);
                }
            }
        }
    }

    @Test
    void withOneClusterAndAlignedCutsNothingIsLogged()
    {
        final TransferSchedule schedule = P2fScheduleBench.schedule("lu", 4, 2, 5);
        final ScheduleAnalysis.Figures f = new ScheduleAnalysis(schedule,
            EpochPlan.aligned(4, 1, schedule.submissions() / 4)).figures(4);
        assertEquals(0, f.logged());
        assertTrue(f.transfers() > 0);
    }
}
