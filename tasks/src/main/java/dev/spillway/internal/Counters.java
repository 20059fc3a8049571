package dev.spillway.internal;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

import java.util.concurrent.atomic.AtomicLong;

/** The IO thread's counters: one writer, any reader. */
final class Counters
{
    /** Adds to a counter that only the calling thread writes: a release store, no fence or lock. */
    static void add(final AtomicLong counter, final long delta)
    {
        counter.lazySet(counter.get() + delta);
    }

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
    /** The budget charge of resident pinned objects. */
    volatile long pinnedCharge;
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
