package dev.spillway.internal;

import dev.spillway.CloseMode;
import dev.spillway.CloseReport;
import dev.spillway.SpillwayStats;
import dev.spillway.memory.DramBudget;
import org.HdrHistogram.Histogram;

/** Adds up the IO thread's counters and every worker's into the reports callers see. Any thread. */
final class Totals
{
    private final Counters counters;
    private final Worker[] workers;
    private final IoAgent agent;
    private final DramBudget budget;
    private final String storeName;

    Totals(final Counters counters, final Worker[] workers, final IoAgent agent, final DramBudget budget,
        final String storeName)
    {
        this.counters = counters;
        this.workers = workers;
        this.agent = agent;
        this.budget = budget;
        this.storeName = storeName;
    }

    /** @return a snapshot of the counters. */
    SpillwayStats stats()
    {
        final int n = workers.length;
        final long[] busy = new long[n];
        final long[] idleNs = new long[n];
        final long[] waiting = new long[n];
        for (int i = 0; i < n; i++)
        {
            busy[i] = workers[i].busyNanos.get();
            idleNs[i] = workers[i].idleNanos.get();
            waiting[i] = workers[i].waitingNanos.get();
        }
        final Counters c = counters;
        long completed = c.completed;
        long failed = c.failed + c.cancelled;
        long handOvers = 0;
        for (final Worker w : workers)
        {
            completed += w.completed.get();
            failed += w.failed.get();
            handOvers += w.handOvers.get();
        }
        final Histogram run = c.taskRunHistogram(workers);
        final Histogram io = c.ioHistogram();
        return new SpillwayStats(storeName, c.bytesRead, c.bytesWritten, c.reads, c.writes, c.writeFailures,
            c.hits, c.misses,
            c.cleanEvictions, c.dirtyEvictions, c.writeBehinds, c.prefetches, handOvers,
            agent.transfersQueued(), completed,
            failed, budget.capacity(), budget.peakPhysical(), busy, idleNs, waiting,
            run.getValueAtPercentile(50), run.getValueAtPercentile(99), io.getValueAtPercentile(50),
            io.getValueAtPercentile(99));
    }

    /** @return what a close in {@code mode} did, having cancelled {@code cancelled} tasks. */
    CloseReport closeReport(final CloseMode mode, final long cancelled)
    {
        long completed = counters.completed;
        long failed = counters.failed;
        for (final Worker w : workers)
        {
            completed += w.completed.get();
            failed += w.failed.get();
        }
        return new CloseReport(mode, completed, failed, cancelled);
    }
}
