package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Failures reach the caller: awaitAll throws, join wraps once, a handle's future completes exceptionally. */
@Timeout(120)
class TaskFailureReportTest
{
    private static final int SIZE = 8 << 10;

    @TempDir
    Path dir;

    @Test
    void awaitAllNamesTheFirstFailureAndCountsTheOthers()
    {
        final IllegalArgumentException boom = new IllegalArgumentException("boom");
        try (Spillway sw = Runtimes.small(dir, 8L * SIZE, "a").build())
        {
            final Data a = sw.data("a", SIZE);
            final Data b = sw.data("b", SIZE);
            sw.task("fill a").write(a).submit(ctx -> { throw boom; });
            sw.task("use a").read(a).write(b).submit(ctx -> { });
            sw.task("use b").read(b).submit(ctx -> { });
            sw.task("empty").submit(ctx -> { throw new IllegalStateException("second"); });
            final TaskFailedException e = assertThrows(TaskFailedException.class, sw::awaitAll);
            assertTrue(e.getMessage().contains("'fill a'") && e.getMessage().contains("3 other task(s) failed"),
                e.getMessage());
            assertSame(boom, e.getCause());
            sw.task("fine").write(a).submit(ctx -> { });
            sw.awaitAll();
        }
    }

    @Test
    void joinWrapsTheBodysExceptionOnce()
    {
        final IllegalStateException boom = new IllegalStateException("boom");
        try (Spillway sw = Runtimes.small(dir, 8L * SIZE, "a").build())
        {
            final Data a = sw.data("a", SIZE);
            final TaskHandle h = sw.task("thrower").write(a).submit(ctx -> { throw boom; });
            final TaskFailedException e = assertThrows(TaskFailedException.class, h::join);
            assertTrue(e.getMessage().contains("'thrower'"), e.getMessage());
            assertSame(boom, e.getCause());
            assertThrows(TaskFailedException.class, sw::awaitAll);
        }
    }

    @Test
    void aHandlesFutureCompletesWithTheOutcome() throws Exception
    {
        final IllegalStateException boom = new IllegalStateException("boom");
        try (Spillway sw = Runtimes.small(dir, 8L * SIZE, "a").build())
        {
            final Data a = sw.data("a", SIZE);
            final CompletableFuture<Void> ok = sw.task("ok").write(a).submit(ctx -> { }).toCompletableFuture();
            final CompletableFuture<Void> bad = sw.task("bad").readWrite(a).submit(ctx -> { throw boom; })
                .toCompletableFuture();
            ok.get(100, TimeUnit.SECONDS);
            final ExecutionException e = assertThrows(ExecutionException.class, () -> bad.get(100, TimeUnit.SECONDS));
            final TaskFailedException failure = (TaskFailedException)e.getCause();
            assertTrue(failure.getMessage().contains("'bad'"), failure.getMessage());
            assertSame(boom, failure.getCause());
            final TaskHandle done = sw.task("after").readWrite(a).submit(ctx -> { });
            assertThrows(TaskFailedException.class, done::join);
            assertTrue(done.toCompletableFuture().isCompletedExceptionally(), "a finished task's future is complete");
            assertTrue(assertThrows(TaskFailedException.class, sw::awaitAll).getMessage()
                .contains("1 other task(s) failed"));
        }
    }
}
