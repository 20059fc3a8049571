package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A body that waits on its own runtime fails with a message instead of hanging it. */
@Timeout(120)
class SelfDeadlockTest
{
    private static final int SIZE = 8 << 10;

    @TempDir
    Path dir;

    @Test
    void closeInsideATaskIsRefusedAndALaterCloseWorks()
    {
        final Spillway sw = Runtimes.small(dir, 8L * SIZE, "a").build();
        final Data a = sw.data("a", SIZE);
        final TaskHandle h = sw.task("closer").write(a).submit(ctx -> sw.close(CloseMode.DRAIN));
        final TaskFailedException e = assertThrows(TaskFailedException.class, h::join);
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("'closer'") &&
            e.getCause().getMessage().contains("close()"), e.getCause().getMessage());
        final CloseReport report = sw.close(CloseMode.CANCEL);
        assertEquals(1, report.failed());
    }

    @Test
    void joiningALaterTaskFromABodyWithOneWorkerFailsThatTask()
    {
        try (Spillway sw = Runtimes.small(dir, 8L * SIZE, "a").workers(1).build())
        {
            final Data a = sw.data("a", SIZE);
            final Data b = sw.data("b", SIZE);
            final AtomicReference<TaskHandle> later = new AtomicReference<>();
            sw.pause();
            final TaskHandle waiter = sw.task("waiter").write(a).submit(ctx -> later.get().join());
            later.set(sw.task("later").write(b).submit(ctx -> { }));
            sw.resume();
            final TaskFailedException e = assertThrows(TaskFailedException.class, waiter::join);
            assertTrue(e.getCause().getMessage().contains("'waiter'") &&
                e.getCause().getMessage().contains("join() on task 'later'"), e.getCause().getMessage());
            later.get().join();
            assertThrows(TaskFailedException.class, sw::awaitAll);
        }
    }

    @Test
    void awaitAllInsideATaskIsRefused()
    {
        try (Spillway sw = Runtimes.small(dir, 8L * SIZE, "a").build())
        {
            final TaskHandle h = sw.task("awaiter").submit(ctx -> sw.awaitAll());
            final TaskFailedException e = assertThrows(TaskFailedException.class, h::join);
            assertTrue(e.getCause().getMessage().contains("awaitAll()"), e.getCause().getMessage());
            assertThrows(TaskFailedException.class, sw::awaitAll);
        }
    }
}
