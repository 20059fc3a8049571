package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every wait can say what it waits for; a timed wait that expires says it too. */
@Timeout(600)
class WaitReasonTest
{
    private static final int SIZE = 8 << 10;

    @TempDir
    Path dir;

    @Test
    void blockedRunningAndDoneTasksExplainThemselves() throws Exception
    {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final Path trace = dir.resolve("trace.json");
        final Spillway sw = Runtimes.small(dir.resolve("spill"), 4L * SIZE, "a").traceFile(trace).build();
        try
        {
            final Data a = sw.data("a", SIZE);
            final TaskHandle producer = sw.task("producer").write(a).submit(ctx ->
            {
                started.countDown();
                release.await();
            });
            final TaskHandle consumer = sw.task("consumer").read(a).submit(ctx -> { });
            started.await();
            assertTrue(producer.waitReason().startsWith("running on worker"), producer.waitReason());
            awaitReason(consumer, "blocked on predecessor(s) 'producer' (#0) RUNNING");
            final StallException e = assertThrows(StallException.class, () -> consumer.join(Duration.ofMillis(50)));
            assertTrue(e.getMessage().contains("'consumer'") && e.getMessage().contains("'producer'"), e.getMessage());
            final StallException all = assertThrows(StallException.class, () -> sw.awaitAll(Duration.ofMillis(50)));
            assertTrue(all.getMessage().contains("'consumer'"), all.getMessage());
            release.countDown();
            consumer.join();
            assertTrue(consumer.waitReason().equals("done"), consumer.waitReason());
        }
        finally
        {
            release.countDown();
            sw.close();
        }
        final String json = Files.readString(trace);
        assertTrue(json.contains("\"traceEvents\"") && json.contains("\"IO thread\"") && json.contains("\"worker 0\"") &&
            json.contains("\"producer\""), json);
    }

    /** A failure is reported by awaitAll only once everything ended; meanwhile a stall report names it. */
    @Test
    void aStallReportNamesTheFailuresNotYetReported() throws Exception
    {
        final CountDownLatch release = new CountDownLatch(1);
        final Spillway sw = Runtimes.small(dir.resolve("spill"), 4L * SIZE, "a").build();
        try
        {
            final Data a = sw.data("a", SIZE);
            final Data b = sw.data("b", SIZE);
            final TaskHandle fails = sw.task("fails").write(a).submit(ctx ->
            {
                throw new IllegalStateException("boom");
            });
            sw.task("waits").write(b).submit(ctx -> release.await());
            assertThrows(TaskFailedException.class, fails::join);
            final StallException e = assertThrows(StallException.class, () -> sw.awaitAll(Duration.ofMillis(50)));
            assertTrue(e.getMessage().contains("1 task(s) failed or were cancelled, not yet reported by awaitAll; " +
                "the first: task 'fails'") && e.getMessage().contains("boom"), e.getMessage());
        }
        finally
        {
            release.countDown();
            assertThrows(TaskFailedException.class, sw::awaitAll);
            sw.close();
        }
    }

    /**
     * With both workers' window slots taken by running tasks, a task that would have to evict waits, says why, and
     * evicts nothing until one finishes (the admission window, {@link SpillwayConfig#admissionWindow}).
     */
    @Test
    void aTaskThatMustEvictWaitsForTheAdmissionWindowAndSaysSo() throws Exception
    {
        final CountDownLatch running = new CountDownLatch(2);
        final CountDownLatch release = new CountDownLatch(1);
        final Spillway sw = Runtimes.small(dir.resolve("spill"), 3L * SIZE, "a").admissionWindow(1).cleanReserve(0)
            .build();
        try
        {
            sw.task("writes x").write(sw.data("x", SIZE)).submit(ctx -> { }).join();
            for (final String name : new String[] {"holds a", "holds b"})
            {
                sw.task(name).write(sw.data(name.substring(6), SIZE)).submit(ctx ->
                {
                    running.countDown();
                    release.await();
                });
            }
            running.await();
            final TaskHandle c = sw.task("writes c").write(sw.data("c", SIZE)).submit(ctx -> { });
            Await.until("'writes c' waiting for the admission window", () -> c.waitReason().contains(
                "the admission window is full (2 admitted task(s) unfinished, window 2)"), c::waitReason);
            assertTrue(sw.stats().nvmBytesWritten() == 0, "x, which 'writes c' would evict, is still in DRAM: " +
                sw.stats());
            release.countDown();
            c.join();
            assertTrue(sw.stats().nvmBytesWritten() > 0, "x was evicted once a slot was free: " + sw.stats());
        }
        finally
        {
            release.countDown();
            sw.close();
        }
    }

    private static void awaitReason(final TaskHandle h, final String expected) throws InterruptedException
    {
        Await.until("wait reason '" + expected + "'", () -> h.waitReason().equals(expected), h::waitReason);
    }
}
