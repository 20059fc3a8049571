package dev.spillway.cli;

import dev.spillway.rdma.Collectives;
import dev.spillway.rdma.Header;
import dev.spillway.rdma.Transport;
import dev.spillway.rdma.TransportException;
import dev.spillway.rdma.Window;
import dev.spillway.rdma.WindowHandle;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Put/get bandwidth and latency from rank 0 into a window of rank 1 (two processes, two ranks, nothing else). Rank 1
 * calls {@link #serve}; rank 0 {@link #connect}s, {@link #measure}s each size and {@link #close}s, which releases
 * rank 1. {@code spillway bench rdma} drives it and puts {@link UcxPerftest} beside it.
 *
 * <p>Method, as {@code ucx_perftest}'s {@code ucp_put_bw} and {@code ucp_get}: bandwidth is {@code n} operations of
 * one size back to back on one target offset, then one flush, after {@code n / 10} of the same as warm-up; the
 * source (put) or destination (get) is one direct buffer of rank 0 that UCX did not allocate; the window is memory
 * UCX allocated at rank 1. Bandwidth is in MiB/s ({@code ucx_perftest}'s "MB/s" is also 2^20 bytes per second).
 * Latency is one put followed by a flush, waited for: a full round trip through both progress threads, so not
 * comparable with {@code ucx_perftest}'s put latency (half a ping-pong).
 */
public final class RdmaBench implements AutoCloseable
{
    /** Smallest size measured. */
    public static final int MIN_BYTES = 8;

    private static final int WINDOW_TAG = 77;
    private static final int DONE_TAG = 99;
    private static final int MIN_ITERATIONS = 4;
    private static final int MAX_ITERATIONS = 1_000_000;
    private static final int MAX_LATENCY_ITERATIONS = 10_000;
    private static final int WARM_UP_ROUNDS = 3;
    private static final int WARM_UP_OPERATIONS = 20_000;

    private final Transport transport;
    private final WindowHandle target;
    private final ByteBuffer local;
    private final Window own;
    private boolean closed;

    /** One size's figures; bandwidths in MiB/s, latencies in microseconds. */
    public record Point(int bytes, int iterations, double putMiBs, double getMiBs, double putLatencyUs)
    {
    }

    private RdmaBench(final Transport transport, final WindowHandle target, final int maxBytes, final Window own)
    {
        this.transport = transport;
        this.target = target;
        this.local = ByteBuffer.allocateDirect(maxBytes);
        this.own = own;
    }

    /**
     * @param maxBytes largest size.
     * @return powers of two from {@link #MIN_BYTES} to {@code maxBytes}, and {@code maxBytes} when it is not one.
     */
    public static List<Integer> sizes(final int maxBytes)
    {
        if (maxBytes < MIN_BYTES)
        {
            throw new IllegalArgumentException("largest size " + maxBytes + " B is below " + MIN_BYTES + " B");
        }
        final List<Integer> sizes = new ArrayList<>();
        for (long s = MIN_BYTES; s <= maxBytes; s *= 2)
        {
            sizes.add((int)s);
        }
        if (sizes.get(sizes.size() - 1) != maxBytes)
        {
            sizes.add(maxBytes);
        }
        return sizes;
    }

    /**
     * Rank 1: exposes a window of {@code windowBytes} that UCX allocates, hands it to rank 0 and returns once rank 0
     * closed its bench (or its transport failed it).
     */
    public static void serve(final Transport transport, final int windowBytes)
    {
        try (Window window = transport.createWindow("rdma-bench-" + transport.rank(), windowBytes))
        {
            Collectives.exchange(transport, WINDOW_TAG, window);
            Collectives.await(transport.receive(0, DONE_TAG, ByteBuffer.allocateDirect(8)));
        }
    }

    /**
     * Rank 0: gets rank 1's window (which {@link #serve} made of {@code maxBytes} or more).
     *
     * @param transport rank 0 of two.
     * @param maxBytes largest size to measure.
     * @return the bench; close it to release rank 1.
     */
    public static RdmaBench connect(final Transport transport, final int maxBytes)
    {
        if (transport.rank() != 0 || transport.size() != 2)
        {
            throw new IllegalArgumentException("the bench runs from rank 0 of 2, not rank " + transport.rank() +
                " of " + transport.size());
        }
        final Window own = transport.createWindow("rdma-bench-0", 8);
        try
        {
            final WindowHandle target = Collectives.exchange(transport, WINDOW_TAG, own)[1];
            if (target.size() < maxBytes)
            {
                throw new TransportException("rank 1's window '" + target.name() + "' has " + target.size() +
                    " bytes, the bench needs " + maxBytes);
            }
            final RdmaBench bench = new RdmaBench(transport, target, maxBytes, own);
            bench.warmUp();
            return bench;
        }
        catch (final RuntimeException ex)
        {
            own.close();
            throw ex;
        }
    }

    /**
     * Measures one size for about {@code seconds} per bandwidth figure: the iteration count is chosen from timed
     * probes, then used for puts and gets alike (and by the caller for {@code ucx_perftest}).
     */
    public Point measure(final int bytes, final double seconds)
    {
        final ByteBuffer region = local.duplicate().limit(bytes).slice();
        final int iterations = iterations(region, seconds);
        final double put = bandwidth(region, iterations, true);
        final double get = bandwidth(region, iterations, false);
        final int latencyIterations = Math.max(MIN_ITERATIONS, Math.min(MAX_LATENCY_ITERATIONS, iterations / 4));
        return new Point(bytes, iterations, put, get, latency(region, latencyIterations));
    }

    /** Runs the measuring code on the smallest size until the JIT compiled it. */
    private void warmUp()
    {
        final ByteBuffer region = local.duplicate().limit(MIN_BYTES).slice();
        for (int round = 0; round < WARM_UP_ROUNDS; round++)
        {
            timed(region, WARM_UP_OPERATIONS, true);
            timed(region, WARM_UP_OPERATIONS, false);
            latency(region, WARM_UP_OPERATIONS / 10);
        }
    }

    /** @return iterations that take about {@code seconds} of puts, timed on growing batches. */
    private int iterations(final ByteBuffer region, final double seconds)
    {
        long n = 1;
        while (true)
        {
            final long nanos = timed(region, (int)n, true);
            if (nanos >= seconds * 1e8 || n >= MAX_ITERATIONS)
            {
                final double perOp = (double)nanos / n;
                return (int)Math.max(MIN_ITERATIONS, Math.min(MAX_ITERATIONS, seconds * 1e9 / perOp));
            }
            n *= 4;
        }
    }

    private double bandwidth(final ByteBuffer region, final int iterations, final boolean put)
    {
        timed(region, Math.max(1, iterations / 10), put);
        final long nanos = timed(region, iterations, put);
        return (double)region.remaining() * iterations / (1 << 20) / (nanos / 1e9);
    }

    /** @return nanoseconds from the first of {@code n} operations to the completion of the flush after them. */
    private long timed(final ByteBuffer region, final int n, final boolean put)
    {
        final long start = System.nanoTime();
        for (int i = 0; i < n; i++)
        {
            if (put)
            {
                transport.put(target, 0, region);
            }
            else
            {
                transport.get(target, 0, region);
            }
        }
        Collectives.await(transport.flush(1));
        return System.nanoTime() - start;
    }

    private double latency(final ByteBuffer region, final int iterations)
    {
        long nanos = 0;
        for (int i = 0; i <= iterations; i++)
        {
            final long one = timed(region, 1, true);
            nanos += i == 0 ? 0 : one;
        }
        return nanos / 1e3 / iterations;
    }

    /** Releases rank 1 from {@link #serve}; the transport stays open. Idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            Collectives.await(transport.send(1, Header.of(DONE_TAG), ByteBuffer.allocateDirect(8)));
        }
        finally
        {
            own.close();
        }
    }
}
