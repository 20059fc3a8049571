package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** close() drains or cancels as documented, and says which; it removes the spill files. */
@Timeout(600)
class CloseTest
{
    private static final int SIZE = 8 << 10;

    @TempDir
    Path dir;

    @Test
    void drainRunsEverythingSubmitted() throws Exception
    {
        final AtomicInteger ran = new AtomicInteger();
        final Spillway sw = Runtimes.small(dir, 4L * SIZE, "a").build();
        final Data a = sw.data("a", SIZE);
        sw.task("init").write(a).submit(ctx -> Thread.sleep(50));
        for (int i = 0; i < 100; i++)
        {
            sw.task("inc " + i).readWrite(a).submit(ctx -> ran.incrementAndGet());
        }
        final CloseReport report = sw.close(CloseMode.DRAIN);
        assertEquals(CloseMode.DRAIN, report.mode());
        assertEquals(100, ran.get());
        assertEquals(101, report.completed());
        assertEquals(0, report.cancelled());
        assertThrows(IllegalStateException.class, () -> sw.task("late").write(a).submit(ctx -> { }));
        try (Stream<Path> files = Files.list(dir))
        {
            assertEquals(List.of(), files.toList(), "spill files must be removed on close");
        }
    }

    @Test
    void cancelStopsWhatHasNotStarted() throws Exception
    {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final Spillway sw = Runtimes.small(dir, 4L * SIZE, "a").build();
        final Data a = sw.data("a", SIZE);
        final TaskHandle first = sw.task("slow init").write(a).submit(ctx ->
        {
            started.countDown();
            release.await();
        });
        final List<TaskHandle> rest = new ArrayList<>();
        for (int i = 0; i < 20; i++)
        {
            rest.add(sw.task("later " + i).readWrite(a).submit(ctx -> { }));
        }
        started.await();
        final Thread closer = new Thread(() -> sw.close(CloseMode.CANCEL));
        closer.start();
        for (final TaskHandle h : rest)
        {
            assertThrows(TaskFailedException.class, () -> h.join(Duration.ofSeconds(20)),
                "blocked tasks are cancelled at once, before the running task ends");
        }
        assertTrue(!first.isDone(), "the running task is left to finish");
        release.countDown();
        closer.join();
        final CloseReport report = sw.close(CloseMode.CANCEL);
        assertEquals(CloseMode.CANCEL, report.mode());
        assertEquals(20, report.cancelled(), report.toString());
        first.join();
        for (final TaskHandle h : rest)
        {
            final TaskFailedException e = assertThrows(TaskFailedException.class, h::join);
            assertTrue(e.getMessage().contains("cancelled"), e.getMessage());
        }
    }
}
