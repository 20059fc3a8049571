package dev.spillway.cli;

import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.SpillwayConfig;
import dev.spillway.TaskBody;
import dev.spillway.TaskBuilder;
import dev.spillway.io.StoreKind;

import java.nio.file.Path;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;

/**
 * The timed workloads of {@code bench overhead}. Each engine run gets a fresh runtime, opened and closed outside
 * the timed region; the ForkJoinPool lives for the whole benchmark so its threads are warm like the engine's.
 */
final class OverheadWorkloads implements AutoCloseable
{
    private static final TaskBody EMPTY_BODY = ctx ->
    {
    };
    private static final Runnable EMPTY = () ->
    {
    };
    private static final int CHAIN_OBJECT_BYTES = 64;
    private static final long DRAM_BUDGET = 256L << 20;

    private final int workers;
    private final Path spillDir;
    private final ForkJoinPool pool;

    OverheadWorkloads(final int workers, final Path spillDir)
    {
        this.workers = workers;
        this.spillDir = spillDir;
        pool = new ForkJoinPool(workers);
    }

    private Spillway open()
    {
        return config().build();
    }

    private SpillwayConfig config()
    {
        return Spillway.builder().workers(workers).dramBudget(DRAM_BUDGET).store(StoreKind.DIRECT).storeDir(spillDir)
            .policy("a,s,d");
    }

    /** @return nanoseconds to submit {@code n} tasks without data and await them all. */
    long engineEmpty(final int n)
    {
        try (Spillway sw = open())
        {
            final long start = System.nanoTime();
            for (int i = 0; i < n; i++)
            {
                sw.task("empty").submit(EMPTY_BODY);
            }
            sw.awaitAll();
            return System.nanoTime() - start;
        }
    }

    /**
     * @return nanoseconds to run one chain per worker, {@code length} tasks each, every task a READ_WRITE of its
     *         chain's object after the first (a WRITE), submitted round-robin across the chains.
     */
    long chains(final int length)
    {
        try (Spillway sw = open())
        {
            final Data[] chain = new Data[workers];
            for (int c = 0; c < workers; c++)
            {
                chain[c] = sw.data("chain-" + c, CHAIN_OBJECT_BYTES);
            }
            final long start = System.nanoTime();
            for (int i = 0; i < length; i++)
            {
                for (final Data d : chain)
                {
                    final TaskBuilder task = sw.task("link");
                    (i == 0 ? task.write(d) : task.readWrite(d)).submit(EMPTY_BODY);
                }
            }
            sw.awaitAll();
            return System.nanoTime() - start;
        }
    }

    /**
     * @return nanoseconds from {@code resume()} to the end of one chain of {@code length} tasks, each a READ_WRITE of
     *         one object after the first (a WRITE), submitted while admission was paused: the chain's critical path,
     *         without the cost of submitting it. A task without data, submitted last and awaited before the clock
     *         starts, shows that the IO thread has taken in every submission (it takes them in order).
     */
    long chainLatency(final int length)
    {
        return chainLatency(length, true);
    }

    /** @return as {@link #chainLatency(int)}, with hand-overs off: every link goes through the IO thread. */
    long chainLatencyWithoutHandOvers(final int length)
    {
        return chainLatency(length, false);
    }

    private long chainLatency(final int length, final boolean handOvers)
    {
        try (Spillway sw = config().handOvers(handOvers).build())
        {
            final Data d = sw.data("chain", CHAIN_OBJECT_BYTES);
            sw.pause();
            for (int i = 0; i < length; i++)
            {
                final TaskBuilder task = sw.task("link");
                (i == 0 ? task.write(d) : task.readWrite(d)).submit(EMPTY_BODY);
            }
            sw.task("all submissions taken in").submit(EMPTY_BODY).join();
            final long start = System.nanoTime();
            sw.resume();
            sw.awaitAll();
            return System.nanoTime() - start;
        }
    }

    /** @return nanoseconds to submit {@code n} empty Runnables to the pool from this thread and join them all. */
    long forkJoin(final int n)
    {
        final ForkJoinTask<?>[] tasks = new ForkJoinTask<?>[n];
        final long start = System.nanoTime();
        for (int i = 0; i < n; i++)
        {
            tasks[i] = pool.submit(EMPTY);
        }
        for (final ForkJoinTask<?> t : tasks)
        {
            t.join();
        }
        return System.nanoTime() - start;
    }

    @Override
    public void close()
    {
        pool.shutdownNow();
    }
}
