package dev.spillway.internal;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.spillway.memory.BufferPool;
import dev.spillway.memory.DramBudget;

import java.io.IOException;
import java.util.Arrays;

/**
 * What the trace's counter tracks show, sampled by the IO thread from its duty cycle every {@link #INTERVAL_NANOS}:
 * DRAM allocated to the buffers of objects (resident or being written back), to pinned objects, to IO staging and to
 * free buffers the pool keeps for reuse, and the running totals of store traffic, hits, misses, evictions, write-behinds and prefetches.
 * Memory is bounded: when {@link #CAPACITY} samples are kept, every other one is dropped and the interval doubles. Written as Chrome counter events ({@code "ph":"C"}).
 */
final class TraceSamples
{
    static final long INTERVAL_NANOS = 10_000_000L;
    static final int CAPACITY = 4096;

    /** Columns of {@link #values}; the bytes and counts are running totals. */
    private static final int TIME = 0;
    private static final int ALLOCATED = 1;
    private static final int PINNED = 2;
    private static final int READ = 3;
    private static final int WRITTEN = 4;
    private static final int HITS = 5;
    private static final int MISSES = 6;
    private static final int CLEAN = 7;
    private static final int DIRTY = 8;
    private static final int WRITE_BEHINDS = 9;
    private static final int PREFETCHES = 10;
    private static final int POOLED = 11;
    private static final int COLUMNS = 12;
    /** Series of each counter event. */
    private static final String[] DRAM = {"objects", "pinned", "staging", "pooled"};
    private static final String[] BUDGET = {"budget"};
    private static final String[] BANDWIDTH = {"read", "write"};
    private static final String[] CACHE = {"hits", "misses"};
    private static final String[] EVICTIONS = {"clean", "dirty"};
    private static final String[] BACKGROUND = {"write-behinds", "prefetches"};

    private final Counters counters;
    private final BufferPool pool;
    private final DramBudget budget;
    private final long stagingBytes;
    private final long[][] values = new long[COLUMNS][CAPACITY];
    private int size;
    private long interval = INTERVAL_NANOS;
    private long next;

    TraceSamples(final Counters counters, final BufferPool pool, final long stagingBytes)
    {
        this.counters = counters;
        this.pool = pool;
        this.budget = pool.budget();
        this.stagingBytes = stagingBytes;
    }

    /** IO thread, every duty cycle: takes a sample if one is due. */
    void tick(final long now)
    {
        if (now >= next)
        {
            sample(now);
        }
    }

    /** IO thread while it runs, or the closing thread after it stopped and before DRAM is freed: a sample now. */
    void sample(final long now)
    {
        if (size == CAPACITY)
        {
            halve();
        }
        final Counters c = counters;
        final long[] row = {now, budget.physical(), c.pinnedCharge, c.bytesRead, c.bytesWritten, c.hits, c.misses,
            c.cleanEvictions, c.dirtyEvictions, c.writeBehinds, c.prefetches, pool.idleBytes()};
        for (int col = 0; col < COLUMNS; col++)
        {
            values[col][size] = row[col];
        }
        size++;
        next = now + interval;
    }

    /** Keeps every other sample, the first included, and samples half as often from now on. */
    private void halve()
    {
        for (final long[] column : values)
        {
            for (int i = 0; i < CAPACITY / 2; i++)
            {
                column[i] = column[2 * i];
            }
            Arrays.fill(column, CAPACITY / 2, CAPACITY, 0);
        }
        size = CAPACITY / 2;
        interval *= 2;
    }

    /**
     * Writes the counter events, {@code ts} in microseconds since {@code origin}: DRAM by component, the budget (at
     * the first and the last sample), store bandwidth over each interval (bytes/s, from the interval's start) and
     * the running counts.
     */
    void write(final JsonGenerator g, final long origin) throws IOException
    {
        for (int i = 0; i < size; i++)
        {
            final double ts = (values[TIME][i] - origin) / 1000.0;
            final long pinned = values[PINNED][i];
            final long pooled = values[POOLED][i];
            counter(g, "DRAM", ts, DRAM, Math.max(0, values[ALLOCATED][i] - stagingBytes - pinned - pooled), pinned,
                stagingBytes, pooled);
            if (i == 0 || i == size - 1)
            {
                counter(g, "DRAM budget", ts, BUDGET, budget.capacity());
            }
            final int to = Math.min(i + 1, size - 1);
            final double seconds = (values[TIME][to] - values[TIME][i]) / 1e9;
            counter(g, "store bandwidth", ts, BANDWIDTH, rate(READ, i, to, seconds), rate(WRITTEN, i, to, seconds));
            counter(g, "cache", ts, CACHE, values[HITS][i], values[MISSES][i]);
            counter(g, "evictions", ts, EVICTIONS, values[CLEAN][i], values[DIRTY][i]);
            counter(g, "background IO", ts, BACKGROUND, values[WRITE_BEHINDS][i], values[PREFETCHES][i]);
        }
    }

    /** @return bytes/s of column {@code col} from sample {@code from} to {@code to}; 0 for the last sample. */
    private long rate(final int col, final int from, final int to, final double seconds)
    {
        return seconds <= 0 ? 0 : Math.round((values[col][to] - values[col][from]) / seconds);
    }

    private static void counter(final JsonGenerator g, final String name, final double ts, final String[] series,
        final long... values) throws IOException
    {
        g.writeStartObject();
        g.writeStringField("name", name);
        g.writeStringField("ph", "C");
        g.writeNumberField("ts", ts);
        g.writeNumberField("pid", 1);
        g.writeObjectFieldStart("args");
        for (int s = 0; s < series.length; s++)
        {
            g.writeNumberField(series[s], values[s]);
        }
        g.writeEndObject();
        g.writeEndObject();
    }
}
