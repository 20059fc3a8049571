package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** A worker running a long task does not count as idle: a new task wakes a sleeping worker at once. */
@Timeout(60)
class WakeUpTest
{
    @TempDir
    Path dir;

    @Test
    void aSleepingWorkerIsWokenWhileTheOtherIsBusy() throws Exception
    {
        try (Spillway sw = Runtimes.small(dir, 1 << 20, "a,s,d").idleMaxParkNanos(5_000_000_000L).build())
        {
            final TaskHandle a = sw.task("long").submit(ctx -> Thread.sleep(1500));
            Thread.sleep(300);
            final AtomicLong started = new AtomicLong();
            final long submitted = System.nanoTime();
            sw.task("short").submit(ctx -> started.set(System.nanoTime())).join(Duration.ofSeconds(10));
            final long latencyMs = (started.get() - submitted) / 1_000_000;
            assertTrue(latencyMs < 500, "the second task waited " + latencyMs + " ms for a worker");
            a.join();
        }
    }

    @Test
    void closeResumesAPausedRuntimeAndAPausedTaskSaysSo()
    {
        final Spillway sw = Runtimes.small(dir, 1 << 20, "a").build();
        final Data d = sw.data("d", 4096);
        sw.pause();
        final TaskHandle h = sw.task("held").write(d).submit(ctx -> { });
        for (int i = 0; i < 2000 && !h.waitReason().startsWith("admission paused"); i++)
        {
            Thread.onSpinWait();
            Thread.yield();
        }
        assertTrue(h.waitReason().startsWith("admission paused"), h.waitReason());
        final CloseReport report = sw.close(CloseMode.DRAIN);
        assertTrue(h.isDone() && report.completed() == 1, report.toString());
    }
}
