package dev.spillway.rdma;

import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A {@link Transport} over UCX (JUCX 1.12.1 on libucx 1.13): shared memory within a host when peer error handling
 * is off, TCP otherwise (loopback only unless allowed). One progress thread per rank ({@link UcxAgent}) owns all
 * UCX state; calls from any thread are queued to it.
 *
 * <p>Atomics: UCX's hardware/transport atomics are not exposed by JUCX, so a fetch-and-add or compare-and-swap is a
 * tagged request to the owner's progress thread, which applies it with a VarHandle atomic on the window and replies:
 * one round trip of two small messages plus both progress threads' reaction time (their idle park, 50 us at most by
 * default). Measured on a shared 2-core VM (AtomicsCostTest): about 25-30 us per dependent fetch-and-add over shared
 * memory and 55-75 us over TCP on loopback, 5-10 us each when pipelined; a NIC atomic costs 2-3 us.
 *
 * <p>Start-up: {@link #open} creates the UCX worker, runs the authenticated rendezvous of {@link ControlPlane}
 * (rank 0 listens on the coordinator address until every rank joined) and connects an endpoint to every rank.
 */
public final class UcxTransport implements Transport
{
    private static final System.Logger LOG = System.getLogger(UcxTransport.class.getName());

    private final TransportConfig config;
    private final UcxAgent agent;
    private final AgentRunner runner;
    private final AtomicReferenceArray<String> lost;
    private ControlPlane control;
    private volatile boolean closed;

    private UcxTransport(final TransportConfig config)
    {
        this.config = config;
        this.lost = new AtomicReferenceArray<>(config.size());
        this.agent = new UcxAgent(config, lost);
        final long maxPark = Math.max(1_000, config.idleMaxPark().toNanos());
        this.runner = new AgentRunner(new BackoffIdleStrategy(100, 10, 1_000, maxPark),
            t -> LOG.log(Level.ERROR, "spillway-rdma: rank " + config.rank() + " progress thread: " + t, t), null,
            agent);
    }

    /**
     * @return null when the UCX native libraries load, otherwise why they do not (for skipping or failing tests).
     */
    public static String unavailableReason()
    {
        try
        {
            Class.forName("org.openucx.jucx.ucp.UcpContext", true, UcxTransport.class.getClassLoader());
            return null;
        }
        catch (final Throwable t)
        {
            return "UCX is unavailable (install libucx0): " + t;
        }
    }

    /**
     * Opens this rank's transport: blocks until every rank joined the rendezvous or the connect timeout passed.
     *
     * @param config rank, size, coordinator, secret and timeouts.
     * @return the connected transport.
     * @throws AuthenticationException when this rank or the coordinator fails the secret handshake.
     * @throws TransportException naming the rank when start-up fails or times out.
     */
    public static UcxTransport open(final TransportConfig config)
    {
        final String missing = unavailableReason();
        if (missing != null)
        {
            throw new TransportException("rank " + config.rank() + ": " + missing);
        }
        final UcxTransport transport = new UcxTransport(config);
        AgentRunner.startOnThread(transport.runner);
        try
        {
            final byte[] address = transport.await(transport.agent.call(transport.agent::workerAddress),
                "creating the UCX worker");
            transport.control = ControlPlane.open(config, address, (rank, reason) ->
                transport.agent.submit(() -> transport.agent.peerLost(rank, reason)));
            final byte[][] addresses = new byte[config.size()][];
            for (int r = 0; r < config.size(); r++)
            {
                addresses[r] = transport.control.blob(r);
            }
            transport.await(transport.agent.call(() -> transport.agent.connect(addresses)), "connecting endpoints");
            return transport;
        }
        catch (final RuntimeException ex)
        {
            transport.close();
            throw ex;
        }
    }

    @Override
    public int rank()
    {
        return config.rank();
    }

    @Override
    public int size()
    {
        return config.size();
    }

    /** @return the configuration this transport runs with. */
    public TransportConfig config()
    {
        return config;
    }

    @Override
    public CompletableFuture<Void> send(final int target, final Header header, final ByteBuffer src)
    {
        Checks.rank(target, size(), "send from rank " + rank());
        Checks.header(header, rank());
        Checks.direct(src, "send from rank " + rank() + " tag " + header.tag());
        final CompletableFuture<Void> future = new CompletableFuture<>();
        final ByteBuffer region = src.slice();
        agent.submit(() -> agent.send(target, header, region, future));
        return future;
    }

    @Override
    public CompletableFuture<Message> receive(final int source, final int tag, final ByteBuffer dst)
    {
        if (source != ANY_SOURCE)
        {
            Checks.rank(source, size(), "receive at rank " + rank());
        }
        Checks.direct(dst, "receive at rank " + rank() + " tag " + tag);
        final CompletableFuture<Message> future = new CompletableFuture<>();
        final ByteBuffer region = dst.slice();
        agent.submit(() -> agent.receive(source, tag, region, future));
        return future;
    }

    @Override
    public Window createWindow(final String name, final int size)
    {
        Checks.windowSize(name, size);
        return await(agent.call(() -> agent.createWindow(name, size)), "creating window '" + name + "'");
    }

    @Override
    public Window registerWindow(final String name, final ByteBuffer memory)
    {
        Checks.direct(memory, "window '" + name + "'");
        Checks.windowSize(name, memory.remaining());
        final ByteBuffer slice = memory.slice();
        return await(agent.call(() -> agent.registerWindow(name, slice)), "registering window '" + name + "'");
    }

    @Override
    public void put(final WindowHandle target, final long offset, final ByteBuffer src)
    {
        target.checkBounds("put", offset, src.remaining());
        Checks.direct(src, "put to window '" + target.name() + "'");
        Checks.rank(target.owner(), size(), "put to window '" + target.name() + "'");
        final ByteBuffer region = src.slice();
        agent.submit(() -> agent.put(target, offset, region));
    }

    @Override
    public void get(final WindowHandle target, final long offset, final ByteBuffer dst)
    {
        target.checkBounds("get", offset, dst.remaining());
        Checks.direct(dst, "get from window '" + target.name() + "'");
        Checks.rank(target.owner(), size(), "get from window '" + target.name() + "'");
        final ByteBuffer region = dst.slice();
        agent.submit(() -> agent.get(target, offset, region));
    }

    @Override
    public CompletableFuture<Void> flush(final int target)
    {
        Checks.rank(target, size(), "flush at rank " + rank());
        final CompletableFuture<Void> future = new CompletableFuture<>();
        agent.submit(() -> agent.flush(target, future));
        return future;
    }

    @Override
    public CompletableFuture<Void> flushAll()
    {
        final CompletableFuture<Void> future = new CompletableFuture<>();
        agent.submit(() -> agent.flushAll(future));
        return future;
    }

    @Override
    public CompletableFuture<Long> fetchAndAdd(final WindowHandle target, final long offset, final long delta)
    {
        LongWords.check("fetchAndAdd", target, offset);
        Checks.rank(target.owner(), size(), "fetchAndAdd on window '" + target.name() + "'");
        final CompletableFuture<Long> future = new CompletableFuture<>();
        agent.submit(() -> agent.atomic(AtomicsDescriptor.FETCH_AND_ADD, target, offset, delta, 0L, future));
        return future;
    }

    @Override
    public CompletableFuture<Long> compareAndSwap(final WindowHandle target, final long offset, final long expected,
        final long update)
    {
        LongWords.check("compareAndSwap", target, offset);
        Checks.rank(target.owner(), size(), "compareAndSwap on window '" + target.name() + "'");
        final CompletableFuture<Long> future = new CompletableFuture<>();
        agent.submit(() -> agent.atomic(AtomicsDescriptor.COMPARE_AND_SWAP, target, offset, expected, update, future));
        return future;
    }

    @Override
    public String lostReason(final int rank)
    {
        return lost.get(rank);
    }

    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (control != null)
        {
            control.close();
        }
        runner.close();
    }

    private <T> T await(final CompletableFuture<T> future, final String what)
    {
        final long timeoutMs = config.operationTimeout().toMillis();
        try
        {
            return future.get(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException ex)
        {
            throw new TransportTimeoutException(rank(), "rank " + rank() + ": " + what, timeoutMs);
        }
        catch (final ExecutionException ex)
        {
            final Throwable cause = ex.getCause();
            if (cause instanceof TransportException te)
            {
                throw te;
            }
            throw new TransportException("rank " + rank() + ": " + what + " failed: " + cause, cause);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new TransportException("rank " + rank() + ": interrupted while " + what, ex);
        }
    }
}
