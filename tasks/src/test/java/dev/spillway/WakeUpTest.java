package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** A worker running a long task does not count as idle: a new task wakes a sleeping worker at once. */
@Timeout(600)
class WakeUpTest
{
    @TempDir
    Path dir;

    @Test
    void aSleepingWorkerIsWokenWhileTheOtherIsBusy() throws Exception
    {
        // "long" holds one worker until "short" has run; the other parks for up to ten minutes once idle, so "short"
        // runs (within the safety net of its join) only if its submission wakes that worker.
        try (Spillway sw = Runtimes.small(dir, 1 << 20, "a,s,d").idleMaxParkNanos(600_000_000_000L).build())
        {
            final CountDownLatch release = new CountDownLatch(1);
            final AtomicReference<Thread> busy = new AtomicReference<>();
            final TaskHandle a = sw.task("long").submit(ctx ->
            {
                busy.set(Thread.currentThread());
                release.await();
            });
            try
            {
                Await.until("'long' to start and the other worker to park", () -> busy.get() != null &&
                    parkedWorkers(busy.get()) > 0, () -> "threads: " + workerStates());
                sw.task("short").submit(ctx -> { }).join(Duration.ofSeconds(30));
            }
            finally
            {
                release.countDown();
            }
            a.join();
        }
    }

    /** @return how many worker threads other than {@code busy} are parked in the idle strategy. */
    private static long parkedWorkers(final Thread busy)
    {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t != busy &&
            t.getName().startsWith("spillway-worker-") && t.getState() == Thread.State.TIMED_WAITING &&
            LockSupport.getBlocker(t) != null).count();
    }

    private static String workerStates()
    {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("spillway-"))
            .map(t -> t.getName() + " " + t.getState() + " blocker " + LockSupport.getBlocker(t)).toList().toString();
    }

    @Test
    void closeResumesAPausedRuntimeAndAPausedTaskSaysSo() throws Exception
    {
        final Spillway sw = Runtimes.small(dir, 1 << 20, "a").build();
        final Data d = sw.data("d", 4096);
        sw.pause();
        final TaskHandle h = sw.task("held").write(d).submit(ctx -> { });
        Await.until("the paused task to say so", () -> h.waitReason().startsWith("admission paused"), h::waitReason);
        final CloseReport report = sw.close(CloseMode.DRAIN);
        assertTrue(h.isDone() && report.completed() == 1, report.toString());
    }
}
