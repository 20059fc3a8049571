package dev.spillway;

import dev.spillway.spi.AsyncTaskBody;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An asynchronous task's context stays its own until its future completes, although its worker runs other tasks
 * meanwhile. A send held during a recovery session resumed on a context rebound to another task: it sent its notice,
 * then failed to find its buffer, and its receiver waited for the data for ever.
 */
@Timeout(600)
class AsyncTaskContextTest
{
    private static final int SIZE = 4 << 10;

    @TempDir
    Path dir;

    @Test
    void theContextOfAStartedAsyncTaskStillServesItsObjectsAfterItsWorkerRanAnotherTask() throws Exception
    {
        final CompletableFuture<Void> later = new CompletableFuture<>();
        try (Spillway sw = Runtimes.small(dir, 8L * SIZE, "a").workers(1).build())
        {
            final Data mine = sw.data("mine", SIZE);
            final Data other = sw.data("other", SIZE);
            sw.task("write mine").write(mine).submit(ctx -> ctx.buffer(mine).putLong(0, 42)).join();
            final long[] seen = new long[1];
            final TaskHandle async = sw.task("async reader").read(mine).submit(new AsyncTaskBody()
            {
                @Override
                public CompletableFuture<?> start(final TaskContext ctx)
                {
                    return later.thenRun(() -> seen[0] = ctx.buffer(mine).getLong(0));
                }
            });
            sw.task("another task on the only worker").write(other).submit(ctx -> ctx.buffer(other).putLong(0, 7))
                .join();
            later.complete(null);
            async.join();
            assertEquals(42, seen[0], "the async task read its own object through its context");
        }
    }
}
