package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Finished tasks are not kept reachable by the objects they used, with or without look-ahead. The chain hands off
 * between threads at every task, which a CPU-starved machine slows a thousandfold (about 40 tasks/s beside
 * {@code stress-ng --cpu 4} on two cores): hence a chain just long enough to pass look-ahead compaction (at 1024 and
 * 2048 queued tasks) and a timeout that is only a safety net; {@code awaitAll} reports stalls every 10 s.
 */
@Timeout(600)
class RetentionTest
{
    private static final int TASKS = 3000;

    @TempDir
    Path dir;

    @Test
    void finishedTasksOnALongLivedObjectCanBeCollected() throws Exception
    {
        for (final int prefetch : new int[] {0, 16})
        {
            try (Spillway sw = Runtimes.small(dir, 1 << 20, "a,s,d").prefetchDepth(prefetch).build())
            {
                final Data d = sw.data("counter", 64);
                sw.task("init").write(d).submit(ctx -> ctx.buffer(d).putLong(0, 0));
                final ReferenceQueue<TaskHandle> collected = new ReferenceQueue<>();
                final List<WeakReference<TaskHandle>> early = new ArrayList<>();
                for (int i = 0; i < TASKS; i++)
                {
                    final TaskHandle h = sw.task("inc " + i).readWrite(d).submit(ctx ->
                    {
                        final var b = ctx.buffer(d);
                        b.putLong(0, b.getLong(0) + 1);
                    });
                    if (i < 1000)
                    {
                        early.add(new WeakReference<>(h, collected));
                    }
                }
                sw.awaitAll();
                long alive = early.size();
                for (int gc = 0; gc < 100 && alive > 1; gc++)
                {
                    System.gc();
                    // The GC enqueues what it cleared: wait for that (bounded), then count what is left.
                    if (collected.remove(1000) != null)
                    {
                        while (collected.poll() != null)
                        {
                            // drain: the count below reads the references themselves
                        }
                    }
                    alive = early.stream().filter(r -> r.get() != null).count();
                }
                assertTrue(alive <= 1, alive + " of 1000 finished tasks still reachable (prefetch " + prefetch + ")");
                sw.task("check").read(d).submit(ctx ->
                {
                    if (ctx.buffer(d).getLong(0) != TASKS)
                    {
                        throw new AssertionError("count " + ctx.buffer(d).getLong(0));
                    }
                }).join();
            }
        }
    }
}
