package dev.spillway.internal;

import dev.spillway.StallException;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

import static java.lang.System.Logger.Level.WARNING;

/**
 * Counts tasks submitted against tasks finished, and lets callers wait until none is left ({@code awaitAll},
 * {@code close}). The IO thread and the workers wake the waiters when the count may have reached zero; an indefinite
 * wait logs a stall report after 10 s in which no task finished, naming the threads that are deadlocked or blocked
 * on a monitor. Each counter has one writer: user tasks are counted under the submit lock, internal tasks
 * (checkpoint saves) on the IO thread, so neither needs an atomic read-modify-write.
 */
final class Quiescence
{
    private static final System.Logger LOG = System.getLogger(Quiescence.class.getName());
    private static final long STALL_REPORT_NANOS = 10_000_000_000L;

    private final AtomicLong submitted = new AtomicLong();
    private final AtomicLong internal = new AtomicLong();
    private final AtomicInteger waiters = new AtomicInteger();
    private final Object lock = new Object();
    private final LongSupplier finished;
    private final long reportNanos;
    private final Consumer<String> stallReports;

    /** @param finished how many tasks finished so far, on any thread; it only grows. */
    Quiescence(final LongSupplier finished)
    {
        this(finished, STALL_REPORT_NANOS, report -> LOG.log(WARNING, report));
    }

    /**
     * @param finished     how many tasks finished so far, on any thread; it only grows.
     * @param reportNanos  the period without a finished task after which an indefinite wait reports.
     * @param stallReports where the reports go.
     */
    Quiescence(final LongSupplier finished, final long reportNanos, final Consumer<String> stallReports)
    {
        this.finished = finished;
        this.reportNanos = reportNanos;
        this.stallReports = stallReports;
    }

    /** Under the submit lock: one more user task to wait for. */
    void submitted()
    {
        Counters.add(submitted, 1);
    }

    /** IO thread: one more internal task (a checkpoint save) to wait for. */
    void internalSubmitted()
    {
        Counters.add(internal, 1);
    }

    /** @return tasks submitted and not yet finished; finished tasks are read first, so it never reads low. */
    long incomplete()
    {
        final long done = finished.getAsLong();
        return submitted.get() + internal.get() - done;
    }

    /** IO thread or worker, after finishing tasks: wakes the waiters if none is left. */
    void check()
    {
        if (waiters.get() > 0 && incomplete() == 0)
        {
            synchronized (lock)
            {
                lock.notifyAll();
            }
        }
    }

    /**
     * Waits until every submitted task is finished.
     *
     * @param timeout      how long to wait, or {@code null} to wait indefinitely, logging stall reports.
     * @param checkFatal   throws if the runtime stopped on an internal error.
     * @param describeWaits what at most that many unfinished tasks wait for, one line each.
     * @throws StallException if the timeout passes or the thread is interrupted.
     */
    void await(final Duration timeout, final Runnable checkFatal, final IntFunction<String> describeWaits)
    {
        final long start = System.nanoTime();
        long nextReport = start + reportNanos;
        long finishedAtLastLook = finished.getAsLong();
        waiters.incrementAndGet();
        try
        {
            synchronized (lock)
            {
                while (incomplete() > 0)
                {
                    checkFatal.run();
                    final long now = System.nanoTime();
                    if (timeout != null && now - start >= timeout.toNanos())
                    {
                        throw new StallException(incomplete() + " task(s) not done after " + timeout + ":\n" +
                            describeWaits.apply(10));
                    }
                    if (timeout == null && now >= nextReport)
                    {
                        final long finishedNow = finished.getAsLong();
                        if (finishedNow == finishedAtLastLook)
                        {
                            stallReports.accept(String.format("spillway: still waiting for %d task(s) after %.1f s, " +
                                "none finished in the last %.1f s:%n%s", incomplete(), (now - start) / 1e9,
                                reportNanos / 1e9, describeWaits.apply(5) + BlockedThreads.describe()));
                        }
                        finishedAtLastLook = finishedNow;
                        nextReport = now + reportNanos;
                    }
                    lock.wait(10);
                }
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new StallException("interrupted while waiting for " + incomplete() + " task(s)");
        }
        finally
        {
            waiters.decrementAndGet();
        }
    }
}
