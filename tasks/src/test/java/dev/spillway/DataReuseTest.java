package dev.spillway;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Admission prefers consumers of data already in DRAM over producers that would evict it (issue 17, item 1): a
 * stream of independent producer→consumer pairs, submitted at once under a budget of a few pairs, moves no bytes
 * through the store, whichever order the pairs were submitted in, under IO orders {@code a} and {@code p}. Order
 * {@code f} keeps seed 003's strict FIFO ({@link Figure61Test}) and spills them all ({@link #fifoSpillsTheStream}).
 */
@Timeout(600)
class DataReuseTest
{
    private static final int SIZE = 64 << 10;
    private static final int PAIRS = 64;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "policy {0}")
    @ValueSource(strings = {"a", "p", "p,s,d", "a,s,d"})
    void producerConsumerPairsSubmittedAtOnceMoveNoBytes(final String policy)
    {
        for (final boolean producersFirst : new boolean[] {false, true})
        {
            final AtomicLong sum = new AtomicLong();
            try (Spillway sw = Runtimes.small(dir.resolve(policy.replace(',', '_') + producersFirst), 4L * SIZE,
                policy).cleanReserve(0).build())
            {
                final Data[] x = new Data[PAIRS];
                for (int i = 0; i < PAIRS; i++)
                {
                    x[i] = sw.data("x" + i, SIZE);
                }
                // At once: the engine sees the whole stream before it admits any of it, as it would if the caller
                // submitted faster than the first producers run, which a loaded machine does not promise.
                sw.pause();
                for (int i = 0; i < PAIRS; i++)
                {
                    produce(sw, x[i], i);
                    if (!producersFirst)
                    {
                        consume(sw, x[i], sum);
                    }
                }
                for (int i = 0; producersFirst && i < PAIRS; i++)
                {
                    consume(sw, x[i], sum);
                }
                sw.resume();
                sw.awaitAll();
                final SpillwayStats s = sw.stats();
                final String where = (producersFirst ? "every producer first" : "pairs interleaved") + ", policy " +
                    policy + ": " + s;
                assertEquals(0, s.nvmBytesWritten(), "nothing written: " + where);
                assertEquals(0, s.nvmBytesRead(), "nothing read: " + where);
                assertEquals(PAIRS * (SIZE / Long.BYTES), sum.get(), "every consumer saw its producer's data");
            }
        }
    }

    @Test
    void fifoSpillsTheStream()
    {
        final AtomicLong sum = new AtomicLong();
        try (Spillway sw = Runtimes.small(dir, 4L * SIZE, "f").cleanReserve(0).build())
        {
            for (int i = 0; i < PAIRS; i++)
            {
                final Data x = sw.data("x" + i, SIZE);
                produce(sw, x, i);
                consume(sw, x, sum);
            }
            sw.awaitAll();
            assertTrue(sw.stats().nvmBytesWritten() > 0, "the control: without reuse the stream spills: " +
                sw.stats());
        }
    }

    private static void produce(final Spillway sw, final Data x, final int i)
    {
        sw.task("produce " + x.tag()).write(x).priority(PAIRS - i).submit(ctx ->
        {
            final java.nio.ByteBuffer b = ctx.buffer(x);
            while (b.hasRemaining())
            {
                b.putLong(1);
            }
        });
    }

    private static void consume(final Spillway sw, final Data x, final AtomicLong sum)
    {
        sw.task("consume " + x.tag()).read(x).submit(ctx ->
        {
            final java.nio.ByteBuffer b = ctx.buffer(x);
            long s = 0;
            while (b.hasRemaining())
            {
                s += b.getLong();
            }
            sum.addAndGet(s);
        });
        sw.discard(x);
    }
}
