package dev.spillway.internal;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/** The IO thread's counters: one writer, any reader. */
final class Counters
{
    volatile long bytesRead;
    volatile long bytesWritten;
    volatile long reads;
    volatile long writes;
    volatile long hits;
    volatile long misses;
    volatile long cleanEvictions;
    volatile long dirtyEvictions;
    volatile long writeBehinds;
    volatile long prefetches;
    volatile long completed;
    volatile long failed;
    volatile long cancelled;

    final Recorder taskRunNanos = new Recorder(3);
    final Recorder ioNanos = new Recorder(3);
    private final Histogram taskRunTotal = new Histogram(3);
    private final Histogram ioTotal = new Histogram(3);

    synchronized Histogram taskRunHistogram()
    {
        taskRunTotal.add(taskRunNanos.getIntervalHistogram());
        return taskRunTotal;
    }

    synchronized Histogram ioHistogram()
    {
        ioTotal.add(ioNanos.getIntervalHistogram());
        return ioTotal;
    }
}
