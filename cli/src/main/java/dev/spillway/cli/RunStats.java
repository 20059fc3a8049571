package dev.spillway.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.spillway.SpillwayStats;
import dev.spillway.kernels.PhaseTasks;
import dev.spillway.memory.ByteUnits;

import java.util.Arrays;
import java.util.Map;

/**
 * A runtime's counters at the end of a run: the {@code stats} object of {@code run --json} (snake_case keys) and the
 * line {@code run} prints. Counts are of events; sizes are bytes.
 *
 * @param tasksDone         tasks finished, in every phase.
 * @param tasksFailed       tasks failed or cancelled.
 * @param hits              object uses that found the object in DRAM.
 * @param misses            object uses that read it from NVMe.
 * @param cleanEvictions    evictions that wrote nothing.
 * @param dirtyEvictions    evictions that wrote the object back first.
 * @param writeBehinds      background write-backs that kept the object in DRAM.
 * @param prefetches        look-ahead reads.
 * @param handOvers         tasks handed straight to their predecessor's worker.
 * @param nvmeBytesRead     bytes read from the NVMe tier, the input generation included.
 * @param nvmeBytesWritten  bytes written to the NVMe tier.
 * @param nvmeBlocksRead    blocks read.
 * @param nvmeBlocksWritten blocks written.
 * @param nvmeWriteFailures write-backs that failed (the object stayed in DRAM).
 * @param dramPeakBytes     the most DRAM held at once.
 * @param dramBudgetBytes   the DRAM budget.
 * @param workerBusyMs      the workers' time in task bodies, summed over the workers.
 * @param workerWaitingForDataMs the workers' time with a task ready but its data not resident, summed.
 */
record RunStats(long tasksDone, long tasksFailed, long hits, long misses, long cleanEvictions, long dirtyEvictions,
    long writeBehinds, long prefetches, long handOvers, long nvmeBytesRead, long nvmeBytesWritten,
    long nvmeBlocksRead, long nvmeBlocksWritten, long nvmeWriteFailures, long dramPeakBytes, long dramBudgetBytes,
    long workerBusyMs, long workerWaitingForDataMs)
{
    private static final ObjectMapper SNAKE = new ObjectMapper()
        .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

    static RunStats of(final SpillwayStats s)
    {
        return new RunStats(s.tasksCompleted(), s.tasksFailed(), s.hits(), s.misses(), s.cleanEvictions(),
            s.dirtyEvictions(), s.writeBehinds(), s.prefetches(), s.handOvers(), s.nvmBytesRead(),
            s.nvmBytesWritten(), s.nvmReads(), s.nvmWrites(), s.nvmWriteFailures(), s.dramPeak(), s.dramBudget(),
            Arrays.stream(s.workerBusyNanos()).sum() / 1_000_000,
            Arrays.stream(s.workerWaitingForDataNanos()).sum() / 1_000_000);
    }

    /** @return the {@code stats} object, with snake_case keys. */
    @SuppressWarnings("unchecked")
    Map<String, Object> json()
    {
        return SNAKE.convertValue(this, Map.class);
    }

    /**
     * @param done the run's tasks by phase, which add up to {@code s}'s finished tasks.
     * @return {@code s} in one line, its finished tasks split by phase.
     */
    static String line(final SpillwayStats s, final PhaseTasks done)
    {
        return String.format("tasks %d done (generation %d, compute %d, verification %d), %d failed | %s: read %s " +
                "(%d blocks), wrote %s (%d blocks, %d failed) | hits %d, misses %d, evictions %d clean + %d dirty, " +
                "write-behind %d, prefetch %d, handed over %d | DRAM peak %s of %s | busy %s ms, waiting for data %s " +
                "ms",
            s.tasksCompleted(), done.generation(), done.compute(), done.verification(), s.tasksFailed(), s.store(),
            ByteUnits.format(s.nvmBytesRead()), s.nvmReads(), ByteUnits.format(s.nvmBytesWritten()), s.nvmWrites(),
            s.nvmWriteFailures(), s.hits(), s.misses(), s.cleanEvictions(), s.dirtyEvictions(), s.writeBehinds(),
            s.prefetches(), s.handOvers(), ByteUnits.format(s.dramPeak()), ByteUnits.format(s.dramBudget()),
            millis(s.workerBusyNanos()), millis(s.workerWaitingForDataNanos()));
    }

    private static String millis(final long[] nanos)
    {
        return Arrays.toString(Arrays.stream(nanos).map(n -> n / 1_000_000).toArray());
    }
}
