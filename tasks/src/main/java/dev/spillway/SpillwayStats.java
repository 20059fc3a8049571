package dev.spillway;

import dev.spillway.memory.ByteUnits;

import java.util.Arrays;

/**
 * A snapshot of a runtime's counters.
 *
 * @param store                     the NVMe store's name.
 * @param nvmBytesRead              bytes read from the NVMe tier into DRAM.
 * @param nvmBytesWritten           bytes written from DRAM to the NVMe tier (evictions and write-behind).
 * @param nvmReads                  blocks read.
 * @param nvmWrites                 blocks written.
 * @param nvmWriteFailures          write-backs that failed (disk full, cap reached); the object stayed in DRAM.
 * @param hits                      object uses by admitted tasks that found the object in DRAM (or on its way).
 * @param misses                    object uses that needed a read from NVMe.
 * @param cleanEvictions            evictions that needed no write.
 * @param dirtyEvictions            evictions that wrote the object back first.
 * @param writeBehinds              background write-backs that kept the object resident.
 * @param prefetches                look-ahead reads issued for tasks not yet runnable.
 * @param handOvers                 tasks a worker ran straight after their predecessor, whose objects they use, without
 *                                  a round trip through the IO thread ({@link SpillwayConfig#handOvers}).
 * @param ioQueueLength             transfers queued for the IO thread now.
 * @param tasksCompleted            tasks that ran to completion.
 * @param tasksFailed               tasks that failed or were cancelled.
 * @param dramBudget                the DRAM cap in bytes.
 * @param dramPeak                  the most off-heap bytes allocated at once.
 * @param workerBusyNanos           per worker, time running task bodies.
 * @param workerIdleNanos           per worker, time idle with no task waiting on data.
 * @param workerWaitingForDataNanos per worker, time idle while some task waited for DRAM or a transfer.
 * @param taskRunP50Nanos           median task body time.
 * @param taskRunP99Nanos           99th percentile task body time.
 * @param ioP50Nanos                median transfer time.
 * @param ioP99Nanos                99th percentile transfer time.
 */
public record SpillwayStats(String store, long nvmBytesRead, long nvmBytesWritten, long nvmReads, long nvmWrites,
    long nvmWriteFailures, long hits, long misses, long cleanEvictions, long dirtyEvictions, long writeBehinds,
    long prefetches, long handOvers, int ioQueueLength, long tasksCompleted, long tasksFailed, long dramBudget,
    long dramPeak, long[] workerBusyNanos, long[] workerIdleNanos, long[] workerWaitingForDataNanos,
    long taskRunP50Nanos, long taskRunP99Nanos, long ioP50Nanos, long ioP99Nanos)
{
    @Override
    public String toString()
    {
        return String.format("tasks %d done, %d failed | %s: read %s (%d blocks), wrote %s (%d blocks, %d failed) | " +
                "hits %d, misses %d, evictions %d clean + %d dirty, write-behind %d, prefetch %d, handed over %d " +
                "| " +
                "DRAM peak %s of %s | busy %s ms, waiting for data %s ms",
            tasksCompleted, tasksFailed, store, ByteUnits.format(nvmBytesRead), nvmReads,
            ByteUnits.format(nvmBytesWritten), nvmWrites, nvmWriteFailures, hits, misses, cleanEvictions,
            dirtyEvictions, writeBehinds, prefetches, handOvers, ByteUnits.format(dramPeak),
            ByteUnits.format(dramBudget),
            Arrays.toString(Arrays.stream(workerBusyNanos).map(n -> n / 1_000_000).toArray()),
            Arrays.toString(Arrays.stream(workerWaitingForDataNanos).map(n -> n / 1_000_000).toArray()));
    }
}
