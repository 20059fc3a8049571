package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Tasks that together need far more than the budget must all finish: admission is all-or-nothing. */
@Timeout(600)
class ContentionTest
{
    private static final int SIZE = 64 << 10;

    @TempDir
    Path dir;

    @Test
    void submittersOnManyThreadsSeeTheirOwnProgramOrder() throws Exception
    {
        try (Spillway sw = Runtimes.small(dir, 4L * SIZE, "a,s,d").workers(2).build())
        {
            final Data shared = sw.data("shared", SIZE);
            sw.task("init shared").write(shared).submit(ctx -> ctx.buffer(shared).putLong(0, 5)).join();
            final int threads = 4;
            final int steps = 500;
            final Data[] counters = new Data[threads];
            final Thread[] submitters = new Thread[threads];
            for (int k = 0; k < threads; k++)
            {
                final Data c = counters[k] = sw.data("counter " + k, SIZE);
                submitters[k] = new Thread(() ->
                {
                    sw.task("zero " + c.tag()).write(c).submit(ctx -> ctx.buffer(c).putLong(0, 0));
                    for (int i = 0; i < steps; i++)
                    {
                        sw.task("add " + c.tag()).read(shared).readWrite(c).submit(ctx ->
                            ctx.buffer(c).putLong(0, ctx.buffer(c).getLong(0) + ctx.buffer(shared).getLong(0)));
                    }
                });
                submitters[k].start();
            }
            for (final Thread t : submitters)
            {
                t.join();
            }
            sw.awaitAll(Duration.ofSeconds(500));
            for (final Data c : counters)
            {
                assertEquals(5L * steps, java.nio.ByteBuffer.wrap(Runtimes.copyOut(sw, c))
                    .order(java.nio.ByteOrder.nativeOrder()).getLong(0), c.tag());
            }
        }
    }

    @Test
    void competingWorkingSetsAllFinish()
    {
        for (final String policy : new String[] {"f", "a,s,d", "p,s"})
        {
            try (Spillway sw = Runtimes.small(dir, 3L * SIZE, policy).workers(3).build())
            {
                final Data[] d = new Data[6];
                for (int i = 0; i < d.length; i++)
                {
                    d[i] = sw.data("d" + i, SIZE);
                    final Data di = d[i];
                    sw.task("init " + i).write(di).submit(ctx -> Runtimes.fill(ctx.buffer(di), 7));
                }
                final List<TaskHandle> handles = new ArrayList<>();
                for (int round = 0; round < 40; round++)
                {
                    final Data a = d[round % 6];
                    final Data b = d[(round + 1) % 6];
                    final Data c = d[(round + 3) % 6];
                    handles.add(sw.task("reader " + round).read(a, b, c).priority(round % 3)
                        .submit(ctx -> Thread.sleep(1)));
                    handles.add(sw.task("pair " + round).read(a).readWrite(b).submit(ctx ->
                    {
                        final var buf = ctx.buffer(b);
                        buf.putLong(0, buf.getLong(0) + ctx.buffer(a).getLong(8));
                    }));
                }
                sw.awaitAll(Duration.ofSeconds(500));
                for (final TaskHandle h : handles)
                {
                    h.join();
                }
                assertEquals(86, sw.stats().tasksCompleted(), policy);
            }
        }
    }
}
