package dev.spillway.rdma;

import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link Transport} over UCX (JUCX 1.12.1 on libucx 1.13): shared memory within a host when peer error handling
 * is off, TCP otherwise (loopback only unless allowed). One progress thread per rank ({@link UcxAgent}) owns the
 * UCX state; sends, receives and atomics from any thread are queued to it. Puts, gets and flushes are issued on the
 * caller's thread (the worker is thread-safe): over shared memory a put is a copy into the target's window inside the
 * call, and its flush completes inside the call too, with no hand-off.
 *
 * <p>Atomics: UCX's hardware/transport atomics are not exposed by JUCX, so a fetch-and-add or compare-and-swap is a
 * tagged request to the owner's progress thread, which applies it with a VarHandle atomic on the window and replies:
 * one round trip of two small messages plus both progress threads' reaction time (their idle park, 50 us at most by
 * default). Measured on a shared 2-core VM (AtomicsCostTest): about 25-30 us per dependent fetch-and-add over shared
 * memory and 55-75 us over TCP on loopback, 5-10 us each when pipelined; a NIC atomic costs 2-3 us.
 *
 * <p>Start-up: {@link #open} creates the UCX worker, runs the authenticated rendezvous of {@link ControlPlane}
 * (rank 0 listens on the coordinator address; every rank joins with the same incarnation) and connects an endpoint
 * to every rank. Rank 0 keeps listening while it runs, for rejoins.
 *
 * <p>Rejoin: a rank relaunched with a higher incarnation than its lost one ({@link TransportConfig#incarnation()})
 * opens as usual; the coordinator, seeing the job running, admits it only if that rank is lost and the incarnation
 * higher, and refuses a live rank, a non-higher incarnation or a peer without the job secret (logged; the opener gets
 * a {@link TransportException} naming the reason, or an {@link AuthenticationException}). An admitted rank gets every
 * rank's incarnation, loss and worker address and connects to the live ones ({@link #rejoined()} says so);
 * rank 0 sends its new address to every other rank over the control connections, where each creates a new endpoint
 * to it (the lost incarnation's endpoint stays force-closed) and tells its listeners it rejoined. Its state, windows
 * and handles are the caller's business: handles of its lost incarnation fail. Rank 0 cannot rejoin.
 *
 * <p>Fencing of a lost incarnation (a zombie: a paused or cut-off process that runs on after it was declared lost).
 * UCX matches tags before the header is seen, so the sender's incarnation is in the tag ({@link TagCodec}) as well as
 * in the header. A receive from one rank names the sender's current incarnation and never matches a lost one's
 * message. The agent drains those messages, which would otherwise wait in UCX's unexpected queue forever: once an
 * incarnation is lost, it probes for its tags about every millisecond and receives and drops each
 * ({@link StaleMessages}). A receive from any rank (and the receives of atomic requests) ignores the sender bits: a
 * lost incarnation's message that it matches is dropped after the header (or request) is read, and the receive posted
 * again. Every dropped message or atomic request is counted ({@link #fencedMessages()}) and the first of each
 * incarnation logged. Not fenced: a zombie's puts and gets, which UCX carries out without the target's software (over
 * shared memory the zombie still has the target's window mapped; over TCP they need the connection the target's
 * force-close ended); re-register windows to revoke them. A limitation: a message of a lost incarnation longer than the
 * buffer of a receive from any rank that matches it fails that receive as truncated.
 */
public final class UcxTransport implements Transport
{
    private static final System.Logger LOG = System.getLogger(UcxTransport.class.getName());

    private final TransportConfig config;
    private final UcxAgent agent;
    private final AgentRunner runner;
    private final PeerStates states;
    private final Fence fence;
    private final ExecutorService eventThread;
    private final PeerEvents events;
    private ControlPlane control;
    private volatile boolean closed;

    private UcxTransport(final TransportConfig config)
    {
        this.config = config;
        this.states = new PeerStates(config.size(), config.incarnation());
        this.fence = new Fence(config.rank(), states);
        this.eventThread = PeerEvents.thread("spillway-rdma-events-" + config.rank());
        this.events = new PeerEvents(eventThread);
        this.agent = new UcxAgent(config, states, fence, events);
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
     * Opens this rank's transport: blocks until every rank joined the rendezvous, or until the running job admitted
     * this rank as a new incarnation of a lost rank, or the connect timeout passed.
     *
     * @param config rank, size, incarnation, coordinator, secret and timeouts.
     * @return the connected transport.
     * @throws AuthenticationException when this rank or the coordinator fails the secret handshake.
     * @throws TransportException naming the rank when start-up fails or times out, or naming the reason when the
     *         coordinator does not admit this rank.
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
                "creating the UCX worker", config.connectTimeout());
            transport.control = ControlPlane.open(config, address, transport.new ControlEvents());
            final Roster roster = transport.control.roster();
            final byte[][] addresses = new byte[config.size()][];
            for (int r = 0; r < config.size(); r++)
            {
                addresses[r] = roster.blob(r);
            }
            transport.await(transport.agent.call(() -> transport.agent.connect(roster.states(), addresses)),
                "connecting endpoints", config.connectTimeout());
            transport.control.start();
            if (transport.control.rejoined())
            {
                LOG.log(Level.INFO, () -> "spillway-rdma: rank " + config.rank() + " rejoined the job as incarnation " +
                    config.incarnation());
            }
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

    @Override
    public int incarnation()
    {
        return config.incarnation();
    }

    @Override
    public int incarnation(final int rank)
    {
        Checks.rank(rank, size(), "incarnation at rank " + rank());
        return states.incarnation(rank);
    }

    /** @return the configuration this transport runs with. */
    public TransportConfig config()
    {
        return config;
    }

    /** @return true when this rank rejoined a running job as a new incarnation, false when it joined a starting one. */
    public boolean rejoined()
    {
        return control.rejoined();
    }

    @Override
    public CompletableFuture<Void> send(final int target, final Header header, final ByteBuffer src)
    {
        Checks.rank(target, size(), "send from rank " + rank());
        Checks.header(header, rank(), incarnation());
        Checks.direct(src, "send from rank " + rank() + " tag " + header.tag());
        final CompletableFuture<Void> future = new CompletableFuture<>();
        final ByteBuffer region = src.slice();
        if (!handed(() -> agent.send(target, header, region, future)))
        {
            future.completeExceptionally(closedOn("send to rank " + target + " tag " + header.tag()));
        }
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
        if (!handed(() -> agent.receive(source, tag, region, future)))
        {
            future.completeExceptionally(closedOn("receive at rank " + rank() + " tag " + tag));
        }
        return future;
    }

    /** @return whether the agent took {@code command}: false once this transport closed, when it would never run. */
    private boolean handed(final Runnable command)
    {
        return !closed && agent.submit(command);
    }

    private PeerFailedException closedOn(final String operation)
    {
        return new PeerFailedException(rank(), operation, "this rank closed its transport");
    }

    @Override
    public Window createWindow(final String name, final int size)
    {
        Checks.windowSize(name, size);
        return await(agent.call(() -> agent.createWindow(name, size)), "creating window '" + name + "'",
            config.operationTimeout());
    }

    @Override
    public Window registerWindow(final String name, final ByteBuffer memory)
    {
        Checks.direct(memory, "window '" + name + "'");
        Checks.windowSize(name, memory.remaining());
        final ByteBuffer slice = memory.slice();
        return await(agent.call(() -> agent.registerWindow(name, slice)), "registering window '" + name + "'",
            config.operationTimeout());
    }

    @Override
    public void put(final WindowHandle target, final long offset, final ByteBuffer src)
    {
        target.checkBounds("put", offset, src.remaining());
        Checks.oneSided("put", target, src, size());
        agent.remoteWindows().put(target, offset, src);
    }

    @Override
    public void get(final WindowHandle target, final long offset, final ByteBuffer dst)
    {
        target.checkBounds("get", offset, dst.remaining());
        Checks.oneSided("get", target, dst, size());
        agent.remoteWindows().get(target, offset, dst);
    }

    @Override
    public CompletableFuture<Void> flush(final int target)
    {
        Checks.rank(target, size(), "flush at rank " + rank());
        return agent.remoteWindows().flush(target);
    }

    @Override
    public CompletableFuture<Void> flushAll()
    {
        return agent.remoteWindows().flushAll();
    }

    @Override
    public CompletableFuture<Long> fetchAndAdd(final WindowHandle target, final long offset, final long delta)
    {
        LongWords.check("fetchAndAdd", target, offset);
        Checks.rank(target.owner(), size(), "fetchAndAdd on window '" + target.name() + "'");
        final CompletableFuture<Long> future = new CompletableFuture<>();
        if (!handed(() -> agent.atomic(AtomicsDescriptor.FETCH_AND_ADD, target, offset, delta, 0L, future)))
        {
            future.completeExceptionally(closedOn("fetchAndAdd on window '" + target.name() + "'"));
        }
        return future;
    }

    @Override
    public CompletableFuture<Long> compareAndSwap(final WindowHandle target, final long offset, final long expected,
        final long update)
    {
        LongWords.check("compareAndSwap", target, offset);
        Checks.rank(target.owner(), size(), "compareAndSwap on window '" + target.name() + "'");
        final CompletableFuture<Long> future = new CompletableFuture<>();
        if (!handed(() -> agent.atomic(AtomicsDescriptor.COMPARE_AND_SWAP, target, offset, expected, update, future)))
        {
            future.completeExceptionally(closedOn("compareAndSwap on window '" + target.name() + "'"));
        }
        return future;
    }

    @Override
    public String lostReason(final int rank)
    {
        return states.lostReason(rank);
    }

    @Override
    public String selfLostReason()
    {
        return control.selfLostReason();
    }

    @Override
    public void addPeerListener(final PeerListener listener)
    {
        events.add(listener);
    }

    @Override
    public void removePeerListener(final PeerListener listener)
    {
        events.remove(listener);
    }

    @Override
    public long fencedMessages()
    {
        return fence.fenced();
    }

    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        flushBeforeGoodbye();
        eventThread.shutdownNow();
        if (control != null)
        {
            control.close();
        }
        runner.close();
    }

    /**
     * Lets UCX write out what this rank posted before the control plane says goodbye, so that a peer which has not
     * yet taken this rank's last messages takes them before it hears of the close (it progresses before applying it).
     */
    private void flushBeforeGoodbye()
    {
        final CompletableFuture<Void> flushed = new CompletableFuture<>();
        agent.submit(() -> agent.flushWorker(flushed));
        try
        {
            flushed.get(Math.min(UcxAgent.MAX_CLOSE_NANOS, config.operationTimeout().toNanos()), TimeUnit.NANOSECONDS);
        }
        catch (final TimeoutException | ExecutionException ex)
        {
            LOG.log(Level.DEBUG, () -> "spillway-rdma: rank " + rank() + " closes before UCX wrote out its last " +
                "messages: " + ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** Hands the control plane's losses and rejoins to the agent, which applies them in order. */
    private final class ControlEvents implements ControlPlane.Listener
    {
        @Override
        public void lost(final int rank, final int incarnation, final String reason)
        {
            agent.submit(() ->
            {
                agent.progressUntilIdle();
                agent.peerLost(rank, incarnation, reason);
            });
        }

        @Override
        public void rejoined(final int rank, final int incarnation, final byte[] blob)
        {
            agent.submit(() -> agent.peerRejoined(rank, incarnation, blob));
        }
    }

    /** @param timeout the connect timeout for start-up steps, the operation timeout for operations. */
    private <T> T await(final CompletableFuture<T> future, final String what, final Duration timeout)
    {
        final long timeoutMs = timeout.toMillis();
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
