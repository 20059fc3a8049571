package dev.spillway.internal;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/** The IO thread's counters: one writer, any reader. */
final class Counters
{
    volatile long bytesRead;
    volatile long bytesWritten;
    volatile long reads;
    volatile long writes;
    volatile long writeFailures;
    volatile long hits;
    volatile long misses;
    volatile long cleanEvictions;
    volatile long dirtyEvictions;
    volatile long writeBehinds;
    volatile long prefetches;
    volatile long completed;
    volatile long failed;
    volatile long cancelled;

    final SingleWriterRecorder ioNanos = new SingleWriterRecorder(3);
    private final Histogram taskRunTotal = new Histogram(3);
    private final Histogram ioTotal = new Histogram(3);

    /** Adds what each worker recorded since the last call, and returns the running total. */
    synchronized Histogram taskRunHistogram(final Worker[] workers)
    {
        for (final Worker w : workers)
        {
            taskRunTotal.add(w.runNanos.getIntervalHistogram());
        }
        return taskRunTotal;
    }

    synchronized Histogram ioHistogram()
    {
        ioTotal.add(ioNanos.getIntervalHistogram());
        return ioTotal;
    }
}
