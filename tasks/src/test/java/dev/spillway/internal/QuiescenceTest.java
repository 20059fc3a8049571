package dev.spillway.internal;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CyclicBarrier;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * User tasks are counted under the submit lock while the IO thread counts checkpoint saves. A count lost between the
 * two let {@code awaitAll} return one task early, so a run's checksum or verification read a result not yet made.
 */
class QuiescenceTest
{
    private static final int EACH = 20_000_000;

    @Test
    void userAndInternalSubmissionsAtOnceAreAllCounted() throws Exception
    {
        final Quiescence q = new Quiescence(() -> 0);
        final CyclicBarrier start = new CyclicBarrier(2);
        final Thread io = new Thread(() ->
        {
            await(start);
            for (int i = 0; i < EACH; i++)
            {
                q.internalSubmitted();
            }
        }, "io");
        io.start();
        await(start);
        for (int i = 0; i < EACH; i++)
        {
            q.submitted();
        }
        io.join(TimeUnit.MINUTES.toMillis(5));
        assertEquals(2L * EACH, q.incomplete(), "tasks counted by the submitter and the IO thread at once");
    }

    private static void await(final CyclicBarrier barrier)
    {
        try
        {
            barrier.await();
        }
        catch (final Exception e)
        {
            throw new IllegalStateException(e);
        }
    }

    /** Issue 18, defect 2: a wait on a healthy run, where tasks keep finishing, must not report a stall. */
    @Test
    void anIndefiniteWaitReportsOnlyAPeriodInWhichNothingFinished() throws Exception
    {
        final List<String> reports = new CopyOnWriteArrayList<>();
        final CountDownLatch reported = new CountDownLatch(1);
        final AtomicLong finished = new AtomicLong();
        final AtomicLong reads = new AtomicLong();
        final AtomicBoolean progressing = new AtomicBoolean(true);
        final AtomicBoolean end = new AtomicBoolean();
        final long tasks = 1_000_000;
        final Quiescence q = new Quiescence(() ->
        {
            reads.incrementAndGet();
            return end.get() ? tasks : progressing.get() ? finished.incrementAndGet() : finished.get();
        }, TimeUnit.MILLISECONDS.toNanos(1), report ->
        {
            reports.add(report);
            reported.countDown();
        });
        for (long i = 0; i < tasks; i++)
        {
            q.submitted();
        }
        final Thread waiter = new Thread(() -> q.await(null, () -> { }, limit -> "  task 7: waiting for data\n"),
            "waiter");
        waiter.start();
        while (reads.get() < 200 && waiter.isAlive())
        {
            Thread.onSpinWait();
        }
        assertEquals(List.of(), reports, "tasks finished in every period, yet a stall was reported");
        progressing.set(false);
        assertTrue(reported.await(1, TimeUnit.MINUTES), "no stall report although nothing finished");
        assertTrue(reports.get(0).contains("none finished in the last") && reports.get(0).contains("task 7"),
            reports.get(0));
        end.set(true);
        waiter.join(TimeUnit.MINUTES.toMillis(1));
        assertFalse(waiter.isAlive(), "the wait did not end once every task finished");
    }
}
