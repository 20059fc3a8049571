package dev.spillway.kernels.blas;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The most a tiled GEMM through the engine can reach: {@code threads} threads at once, each multiplying its own
 * tiles with single-threaded {@code dgemm}, nothing else running. The engine's in-core GEMM over this is its
 * efficiency.
 */
public final class BlasCeiling
{
    private static final int PAGE = 4096;

    private BlasCeiling()
    {
    }

    /**
     * @param tile    the tile order.
     * @param threads threads multiplying at once.
     * @param repeats products per thread, timed after one untimed warm-up each.
     * @return GFLOP/s of all threads together, from the common start to the last thread's end.
     */
    public static double gflops(final TileBlas blas, final int tile, final int threads, final int repeats)
        throws InterruptedException
    {
        final CountDownLatch warm = new CountDownLatch(threads);
        final CountDownLatch go = new CountDownLatch(1);
        final AtomicBoolean abort = new AtomicBoolean();
        final AtomicLong lastEnd = new AtomicLong();
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final List<Thread> running = new ArrayList<>();
        for (int i = 0; i < threads; i++)
        {
            final long seed = i;
            final Thread t = new Thread(() ->
            {
                boolean counted = false;
                try
                {
                    final ByteBuffer a = random(tile, 3 * seed + 1);
                    final ByteBuffer b = random(tile, 3 * seed + 2);
                    final ByteBuffer c = random(tile, 3 * seed + 3);
                    blas.dgemm(false, false, tile, tile, tile, 1, a, tile, b, tile, 0, c, tile);
                    warm.countDown();
                    counted = true;
                    go.await();
                    for (int r = 0; r < repeats && !abort.get(); r++)
                    {
                        blas.dgemm(false, false, tile, tile, tile, 1, a, tile, b, tile, 0.5, c, tile);
                    }
                    lastEnd.accumulateAndGet(System.nanoTime(), Math::max);
                }
                catch (final Throwable e)
                {
                    failures.add(e);
                    if (!counted)
                    {
                        warm.countDown();
                    }
                }
            }, "spillway-blas-ceiling-" + i);
            running.add(t);
            t.start();
        }
        warm.await();
        abort.set(!failures.isEmpty());
        final long started = System.nanoTime();
        go.countDown();
        for (final Thread t : running)
        {
            t.join();
        }
        if (!failures.isEmpty())
        {
            throw new IllegalStateException("BLAS ceiling: " + failures.get(0), failures.get(0));
        }
        return 2.0 * tile * tile * tile * repeats * threads / (lastEnd.get() - started);
    }

    private static ByteBuffer random(final int tile, final long seed)
    {
        final int bytes = tile * tile * Double.BYTES;
        // page-aligned, as the engine's buffers are: OpenBLAS is slower on unaligned tiles
        final int pages = (bytes + PAGE - 1) / PAGE * PAGE;
        final ByteBuffer buffer = ByteBuffer.allocateDirect(pages + PAGE).alignedSlice(PAGE).limit(bytes).slice()
            .order(ByteOrder.nativeOrder());
        long x = seed * 0x9E3779B97F4A7C15L + 1;
        for (int i = 0; i < tile * tile; i++)
        {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            buffer.putDouble(i * Double.BYTES, (x >>> 11) * 0x1.0p-53 - 0.5);
        }
        return buffer;
    }
}
