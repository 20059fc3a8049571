package dev.spillway.cli;

import dev.spillway.SpillwayStats;
import dev.spillway.kernels.Kernel;
import dev.spillway.kernels.PhaseTasks;
import dev.spillway.kernels.RunResult;
import dev.spillway.kernels.blas.JavaBlas;
import dev.spillway.kernels.dense.Lu;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What {@code run} reports of a result: the rate of a resumed run and the task counts of its stats line. */
class RunSummaryTest
{
    private static final long INPUT_TASKS = 64;

    /** Issue 18, defect 11: a resumed run's rate counts only the compute tasks it ran, not those restored. */
    @Test
    void aResumedRunsRateCountsOnlyTheComputeTasksItRan()
    {
        final Kernel lu = new Lu(512, 64, false, new JavaBlas());
        final RunResult r = new RunResult("spillway", 0.5, 2.0, 0, 0, null, "x", INPUT_TASKS,
            new PhaseTasks(INPUT_TASKS, lu.computeTasks(), 8));
        final double whole = lu.work() / 2.0 / 1e9;
        assertEquals(whole, RunSummary.rate(lu, r, 0), whole * 1e-12, "a fresh start");
        assertEquals(whole, RunSummary.rate(lu, r, INPUT_TASKS), whole * 1e-12, "only the inputs restored");
        final long half = lu.computeTasks() / 2;
        assertEquals(whole * (lu.computeTasks() - half) / lu.computeTasks(),
            RunSummary.rate(lu, r, INPUT_TASKS + half), whole * 1e-12, "half the compute restored");
        assertEquals(0, RunSummary.rate(lu, r, INPUT_TASKS + lu.computeTasks() + 8), 0.0, "all restored");
        assertEquals("gflop_per_s", RunSummary.rateKey(lu));
    }

    /** Issue 18, defect 7: the stats line splits the tasks done by phase, as the progress bar counts compute only. */
    @Test
    void theStatsLineSplitsTheTasksDoneByPhase()
    {
        final SpillwayStats s = new SpillwayStats("direct", 3L << 30, 1L << 30, 30, 10, 0, 500, 30, 4, 6, 2, 9, 0, 0,
            384, 0, 8L << 20, 6L << 20, new long[] {1_000_000_000L}, new long[] {0}, new long[] {2_000_000L}, 0, 0,
            0, 0);
        final String line = RunStats.line(s, new PhaseTasks(90, 204, 90));
        assertTrue(line.startsWith("tasks 384 done (generation 90, compute 204, verification 90), 0 failed"), line);
        assertTrue(line.contains("read 3 GiB (30 blocks)") && line.contains("DRAM peak 6 MiB of 8 MiB"),
            line);
        assertEquals(3L << 30, ((Number)RunStats.of(s).json().get("nvme_bytes_read")).longValue());
        assertEquals(6, ((Number)RunStats.of(s).json().get("dirty_evictions")).longValue());
    }
}
