package dev.spillway.internal;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Stall reports name the threads a stuck callback may be waiting on. */
class BlockedThreadsTest
{
    private static final long LIMIT_MS = TimeUnit.MINUTES.toMillis(2);

    @Test
    void aThreadBlockedOnAMonitorIsNamedWithItsOwner() throws Exception
    {
        final Object monitor = new Object();
        final Thread blocked = new Thread(() ->
        {
            synchronized (monitor)
            {
                monitor.notifyAll();
            }
        }, "blocked-on-monitor");
        synchronized (monitor)
        {
            blocked.start();
            awaitState(() -> blocked.getState() == Thread.State.BLOCKED, "the thread to block on the monitor");
            final String report = BlockedThreads.describe();
            assertTrue(report.contains("thread 'blocked-on-monitor' BLOCKED on java.lang.Object@") &&
                report.contains("held by '" + Thread.currentThread().getName() + "'"), report);
            assertFalse(report.contains("DEADLOCK"), report);
        }
        blocked.join(LIMIT_MS);
        assertFalse(BlockedThreads.describe().contains("blocked-on-monitor"));
    }

    @Test
    void aDeadlockIsReportedFirst() throws Exception
    {
        final ReentrantLock a = new ReentrantLock();
        final ReentrantLock b = new ReentrantLock();
        final CountDownLatch bothHold = new CountDownLatch(2);
        final Thread first = lockingInOrder("deadlock-first", a, b, bothHold);
        final Thread second = lockingInOrder("deadlock-second", b, a, bothHold);
        try
        {
            awaitState(() -> BlockedThreads.describe().contains("DEADLOCK"), "the two threads to deadlock");
            final String report = BlockedThreads.describe();
            assertTrue(report.startsWith("  DEADLOCK among 2 thread(s):") && report.contains("'deadlock-first'") &&
                report.contains("'deadlock-second'"), report);
        }
        finally
        {
            first.interrupt();
            second.interrupt();
            first.join(LIMIT_MS);
            second.join(LIMIT_MS);
        }
    }

    private static Thread lockingInOrder(final String name, final ReentrantLock outer, final ReentrantLock inner,
        final CountDownLatch bothHold)
    {
        final Thread t = new Thread(() ->
        {
            try
            {
                outer.lockInterruptibly();
                try
                {
                    bothHold.countDown();
                    bothHold.await();
                    inner.lockInterruptibly();
                    inner.unlock();
                }
                finally
                {
                    outer.unlock();
                }
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void awaitState(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(LIMIT_MS);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("timed out after " + LIMIT_MS + " ms waiting for " + what + ":\n" +
                    BlockedThreads.describe());
            }
            Thread.onSpinWait();
            Thread.sleep(1);
        }
    }
}
