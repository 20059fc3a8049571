package dev.spillway.rdma;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Test helpers for UCX ranks. */
final class Ucx
{
    static final String SECRET = "test-secret-0123456789abcdef";
    /** Safety net for the rendezvous, which ends once every rank has joined: a peer JVM may start slowly. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(120);

    private Ucx()
    {
    }

    /** Fails when CI=true and UCX is missing; otherwise skips with the reason. */
    static void requireUcx()
    {
        final String reason = UcxTransport.unavailableReason();
        if (reason != null)
        {
            if ("true".equalsIgnoreCase(System.getenv("CI")))
            {
                fail("CI=true but " + reason);
            }
            assumeTrue(false, reason);
        }
    }

    static InetSocketAddress freeLoopbackAddress()
    {
        return CoordinatorPorts.freeLoopback();
    }

    static TransportConfig.Builder config(final int rank, final int size, final InetSocketAddress coordinator,
        final Duration operationTimeout)
    {
        return TransportConfig.builder().rank(rank).size(size).coordinator(coordinator)
            .secret(SECRET.getBytes(StandardCharsets.UTF_8)).operationTimeout(operationTimeout)
            .connectTimeout(CONNECT_TIMEOUT).failureTimeout(Duration.ofSeconds(2));
    }

    /** Opens {@code ranks} UCX transports in this JVM, each with its own context and worker. */
    static Transport[] connect(final int ranks, final Duration operationTimeout, final boolean peerErrorHandling)
    {
        final InetSocketAddress coordinator = freeLoopbackAddress();
        final List<TransportConfig> configs = new ArrayList<>();
        for (int r = 0; r < ranks; r++)
        {
            configs.add(config(r, ranks, coordinator, operationTimeout).peerErrorHandling(peerErrorHandling).build());
        }
        return open(configs);
    }

    /** Opens a UCX transport per configuration in this JVM, at once, each with its own context and worker. */
    static Transport[] open(final List<TransportConfig> configs)
    {
        final int ranks = configs.size();
        final List<CompletableFuture<UcxTransport>> opening = new ArrayList<>();
        for (final TransportConfig config : configs)
        {
            final int r = config.rank();
            final Thread[] holder = new Thread[1];
            final CompletableFuture<UcxTransport> f = new CompletableFuture<>();
            holder[0] = new Thread(() ->
            {
                try
                {
                    f.complete(UcxTransport.open(config));
                }
                catch (final Throwable t)
                {
                    f.completeExceptionally(t);
                }
            }, "open-rank-" + r);
            holder[0].start();
            opening.add(f);
        }
        final Transport[] group = new Transport[ranks];
        final List<Throwable> errors = new ArrayList<>();
        for (int r = 0; r < ranks; r++)
        {
            try
            {
                group[r] = opening.get(r).join();
            }
            catch (final CompletionException ex)
            {
                errors.add(ex.getCause());
            }
        }
        if (!errors.isEmpty())
        {
            for (final Transport t : group)
            {
                if (t != null)
                {
                    t.close();
                }
            }
            throw new AssertionError("opening UCX ranks failed: " + errors, errors.get(0));
        }
        return group;
    }
}
