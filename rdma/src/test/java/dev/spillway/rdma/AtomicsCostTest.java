package dev.spillway.rdma;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Prints what an emulated remote fetch-and-add costs (one request and one reply through the owner's progress
 * thread) on each transport; asserts only the sums. Not a benchmark: a measurement to keep the cost in view.
 */
final class AtomicsCostTest
{
    static final int OPS = 2_000;

    @Test
    void fetchAndAddRoundTrip()
    {
        final InProcessFabric fabric = new InProcessFabric(2, Duration.ofSeconds(10));
        measure("in-process", new Transport[] {fabric.transport(0), fabric.transport(1)});
        if (UcxTransport.unavailableReason() == null)
        {
            measure("UCX tcp/lo (peer error handling)", Ucx.connect(2, Duration.ofSeconds(10), true));
            measure("UCX shared memory", Ucx.connect(2, Duration.ofSeconds(10), false));
        }
        else
        {
            System.out.println("AtomicsCostTest: " + UcxTransport.unavailableReason());
        }
    }

    static void measure(final String name, final Transport[] t)
    {
        try (Window w = t[1].createWindow("counter", 64))
        {
            final WindowHandle h = WindowHandle.fromBytes(w.handle().toBytes());
            for (int i = 0; i < OPS / 10; i++)
            {
                Collectives.await(t[0].fetchAndAdd(h, 0, 1));
            }
            final long start = System.nanoTime();
            for (int i = 0; i < OPS; i++)
            {
                Collectives.await(t[0].fetchAndAdd(h, 8, 1));
            }
            final double us = (System.nanoTime() - start) / 1e3 / OPS;
            final long pipelinedStart = System.nanoTime();
            final java.util.List<java.util.concurrent.CompletableFuture<Long>> all = new java.util.ArrayList<>();
            for (int i = 0; i < OPS; i++)
            {
                all.add(t[0].fetchAndAdd(h, 16, 1));
            }
            all.forEach(Collectives::await);
            final double pipelined = (System.nanoTime() - pipelinedStart) / 1e3 / OPS;
            System.out.printf("AtomicsCostTest: %-34s fetchAndAdd %7.1f us round trip, %6.2f us each pipelined (%d ops)%n",
                name, us, pipelined, OPS);
            assertEquals(OPS, w.buffer().getLong(8));
            assertEquals(OPS, w.buffer().getLong(16));
            assertEquals(OPS / 10, w.buffer().getLong(0));
        }
        finally
        {
            for (final Transport transport : t)
            {
                transport.close();
            }
        }
    }
}
