package dev.spillway.rdma;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The UCX progress agent: the thread that progresses the UCX worker (thread-safe) and owns the context, the endpoints'
 * life and every two-sided and atomic operation. It drains commands queued by {@link UcxTransport}, calls
 * {@code worker.progress()} on every duty cycle (TCP needs the target to progress for puts to land) and fails, about
 * every millisecond, the operations whose deadline passed. Puts, gets and flushes are issued on the caller's thread
 * ({@link RemoteWindows}), which uses an endpoint only while the agent cannot retire it.
 *
 * <p>The work is done by parts it wires together in {@link #onStart()}, all confined to this thread:
 * {@link TaggedMessages} (two-sided), {@link LocalWindows} and {@link RemoteWindows} (one-sided),
 * {@link AtomicRequests} and {@link AtomicService} (emulated atomics, over {@link InternalReceive}s),
 * {@link PendingOperations} (deadlines and peer loss), {@link UcxPeers} (endpoints, incarnations and who is lost)
 * and {@link StaleMessages} (draining lost incarnations' messages, with the deadlines scan).
 *
 * <p>Peer losses and rejoins happen here, whoever reports them, and are published to the {@link PeerEvents} from
 * here, so that listeners hear them in the order they took effect.
 */
final class UcxAgent implements Agent
{
    private static final System.Logger LOG = System.getLogger(UcxAgent.class.getName());
    private static final int INTERNAL_RECEIVES_PER_TYPE = 8;
    private static final int COMMANDS_PER_CYCLE = 256;
    private static final long SCAN_NANOS = 1_000_000L;
    /** The longest a close waits for UCX (its endpoints, or its last messages). */
    static final long MAX_CLOSE_NANOS = 2_000_000_000L;
    private static final long CLOSE_WAIT_PARK_NANOS = 100_000L;

    private final TransportConfig config;
    private final int rank;
    private final long timeoutNanos;
    private final ManyToOneConcurrentLinkedQueue<Runnable> commands = new ManyToOneConcurrentLinkedQueue<>();
    /** Set, under {@link #commands}' monitor, before the close drains the commands for the last time. */
    private boolean closing;
    private final UcxPeers peers;
    private final Fence fence;
    private final PeerEvents events;
    private final SmallBuffers smallBuffers = new SmallBuffers();
    private final List<InternalReceive> internalReceives = new ArrayList<>();
    private UcpContext context;
    private UcpWorker worker;
    private PendingOperations pending;
    private TaggedMessages messages;
    private LocalWindows localWindows;
    private volatile RemoteWindows remoteWindows;
    private volatile Thread thread;
    private AtomicRequests atomicRequests;
    private AtomicService atomicService;
    private StaleMessages stale;
    private long nextScan;

    /**
     * @param states each rank's incarnation and loss; the agent records losses and rejoins there.
     * @param fence drops and counts the messages of lost incarnations.
     * @param events told of each loss and rejoin.
     */
    UcxAgent(final TransportConfig config, final PeerStates states, final Fence fence, final PeerEvents events)
    {
        this.config = config;
        this.rank = config.rank();
        this.timeoutNanos = config.operationTimeout().toNanos();
        this.peers = new UcxPeers(config, states);
        this.fence = fence;
        this.events = events;
    }

    @Override
    public String roleName()
    {
        return "spillway-rdma-" + rank;
    }

    /**
     * Queues {@code command} for the agent thread.
     *
     * @return false, and nothing queued, once the agent closed: the command would never run.
     */
    boolean submit(final Runnable command)
    {
        synchronized (commands)
        {
            if (closing)
            {
                return false;
            }
            commands.offer(command);
            return true;
        }
    }

    /** Runs {@code call} on the agent thread. */
    <T> CompletableFuture<T> call(final Supplier<T> call)
    {
        final CompletableFuture<T> future = new CompletableFuture<>();
        if (!submit(() ->
        {
            try
            {
                future.complete(call.get());
            }
            catch (final Throwable t)
            {
                future.completeExceptionally(t);
            }
        }))
        {
            future.completeExceptionally(new IllegalStateException("rank " + rank + ": the transport is closed"));
        }
        return future;
    }

    @Override
    public void onStart()
    {
        final UcpParams params = new UcpParams().requestTagFeature().requestRmaFeature();
        if (!config.allowNonLoopback())
        {
            params.setConfig("NET_DEVICES", "lo");
        }
        context = new UcpContext(params);
        thread = Thread.currentThread();
        worker = context.newWorker(new UcpWorkerParams().requestThreadSafety());
        WorkerThreadMode.requireMulti(worker);
        pending = new PendingOperations(worker, peers, smallBuffers, this::lostByUcx, config);
        messages = new TaggedMessages(config, worker, peers, pending, smallBuffers, fence, this::submit);
        localWindows = new LocalWindows(config, context, this::releaseWindow);
        remoteWindows = new RemoteWindows(config, peers, pending, this);
        atomicRequests = new AtomicRequests(config, peers, pending, smallBuffers);
        atomicService = new AtomicService(config, peers, localWindows, smallBuffers, fence);
        stale = new StaleMessages(worker, fence);
    }

    @Override
    public int doWork() throws Exception
    {
        int work = 0;
        Runnable command;
        while (work < COMMANDS_PER_CYCLE && (command = commands.poll()) != null)
        {
            command.run();
            work++;
        }
        work += progressAll();
        final long now = System.nanoTime();
        if (now - nextScan >= 0)
        {
            nextScan = now + SCAN_NANOS;
            pending.expire(now, atomicRequests::forget);
            work += stale.drain();
        }
        return work;
    }

    // ---- set-up, on the agent thread ----

    byte[] workerAddress()
    {
        final ByteBuffer address = worker.getAddress();
        final byte[] bytes = new byte[address.remaining()];
        address.get(bytes);
        return bytes;
    }

    /**
     * @param table each rank's incarnation and loss as the rendezvous reported them.
     * @param addresses each rank's worker address.
     */
    Void connect(final PeerStates table, final byte[][] addresses)
    {
        peers.connect(worker, table, addresses, this::lostByUcx);
        for (int r = 0; r < table.size(); r++)
        {
            if (table.get(r).lost())
            {
                stale.add(r, table.incarnation(r));
            }
        }
        for (int i = 0; i < INTERNAL_RECEIVES_PER_TYPE; i++)
        {
            internalReceives.add(new InternalReceive(rank, AtomicsDescriptor.REQUEST_MESSAGE,
                AtomicsDescriptor.REQUEST_LENGTH, worker, peers, atomicService::serve));
            internalReceives.add(new InternalReceive(rank, AtomicsDescriptor.REPLY_MESSAGE,
                AtomicsDescriptor.REPLY_LENGTH, worker, peers, atomicRequests::complete));
        }
        internalReceives.forEach(InternalReceive::post);
        return null;
    }

    // ---- operations, each on the agent thread ----

    void send(final int target, final Header header, final ByteBuffer src, final CompletableFuture<Void> future)
    {
        messages.send(target, header, src, future);
    }

    void receive(final int source, final int tag, final ByteBuffer dst, final CompletableFuture<Message> future)
    {
        messages.receive(source, tag, dst, future);
    }

    Window createWindow(final String name, final int length)
    {
        return localWindows.create(name, length);
    }

    Window registerWindow(final String name, final ByteBuffer slice)
    {
        return localWindows.register(name, slice);
    }

    /** @return puts, gets and flushes, issued on the caller's thread; once started. */
    RemoteWindows remoteWindows()
    {
        return remoteWindows;
    }

    /** @return whether the caller is this agent's thread. */
    boolean onAgentThread()
    {
        return Thread.currentThread() == thread;
    }

    /** @param operation {@link AtomicsDescriptor#FETCH_AND_ADD} or {@link AtomicsDescriptor#COMPARE_AND_SWAP}. */
    void atomic(final int operation, final WindowHandle target, final long offset, final long operand,
        final long update, final CompletableFuture<Long> future)
    {
        atomicRequests.request(operation, target, offset, operand, update, future);
    }

    /** Closes window {@code id} from the window's closing thread: waits for the agent to deregister it. */
    private void releaseWindow(final int id)
    {
        final CompletableFuture<Void> done = call(() ->
        {
            localWindows.deregister(id);
            return null;
        });
        final long deadline = System.nanoTime() + timeoutNanos;
        while (!done.isDone())
        {
            if (peers.closing())
            {
                return; // onClose deregisters every window
            }
            if (System.nanoTime() - deadline >= 0)
            {
                throw new TransportTimeoutException(rank, "rank " + rank + ": closing window " + id,
                    config.operationTimeout().toMillis());
            }
            LockSupport.parkNanos(CLOSE_WAIT_PARK_NANOS);
        }
        done.join();
    }

    // ---- peer loss ----

    /**
     * Progresses the worker until it has nothing more to do, before a loss the control plane reported is applied:
     * what a peer sent before it closed its transport (it flushed first) completes instead of failing with the loss.
     */
    void progressUntilIdle()
    {
        try
        {
            if (worker != null)
            {
                progressAll();
            }
        }
        catch (final Exception ex)
        {
            LOG.log(Level.WARNING, "spillway-rdma: rank " + rank + " progress before a loss: " + ex);
        }
    }

    /** @return the events of progressing the worker until it has nothing more to do. */
    private int progressAll() throws Exception
    {
        int work = 0;
        int events;
        while ((events = worker.progress()) > 0)
        {
            work += events;
        }
        return work;
    }

    /** Completes {@code done} once UCX wrote out everything this rank posted so far (or failed to). */
    void flushWorker(final CompletableFuture<Void> done)
    {
        if (worker == null)
        {
            done.complete(null);
            return;
        }
        try
        {
            worker.flushNonBlocking(new UcxCallback()
            {
                @Override
                public void onSuccess(final UcpRequest request)
                {
                    done.complete(null);
                }

                @Override
                public void onError(final int status, final String message)
                {
                    done.complete(null);
                }
            });
        }
        catch (final RuntimeException ex)
        {
            done.complete(null);
        }
    }

    /**
     * Marks {@code incarnation} of {@code peer} lost, fails everything waiting on it and drains its late messages
     * from now on; idempotent.
     *
     * @return true when this call lost the peer; false when it was lost before, or the incarnation is not current.
     */
    boolean peerLost(final int peer, final int incarnation, final String reason)
    {
        if (!peers.markLost(peer, incarnation, reason))
        {
            return false;
        }
        atomicRequests.forgetPeer(peer);
        pending.failPeer(peer, reason);
        stale.add(peer, incarnation);
        // On the next duty cycle: maybe inside UCX progress now, where a caller's put may wait for the worker's lock.
        submit(() -> retire(peer, incarnation));
        events.publish(PeerEvent.lost(peer, incarnation, reason));
        return true;
    }

    /**
     * Connects to {@code incarnation} of {@code peer}, which rejoined the job with its worker at {@code address}. An
     * incarnation of the peer still alive here is lost first (a new one exists: the old one is gone); a report of an
     * incarnation not higher than the current one is ignored.
     */
    void peerRejoined(final int peer, final int incarnation, final byte[] address)
    {
        final PeerStates.State state = peers.state(peer);
        if (incarnation <= state.incarnation())
        {
            return;
        }
        if (!state.lost())
        {
            peerLost(peer, state.incarnation(), "replaced by incarnation " + incarnation);
        }
        retire(peer, state.incarnation());
        if (remoteWindows.exclusive(() -> peers.rejoin(worker, peer, incarnation, address, this::lostByUcx)))
        {
            events.publish(PeerEvent.rejoined(peer, incarnation));
        }
    }

    /**
     * Takes the endpoint and keys of the lost {@code incarnation} of {@code peer} out of callers' use, unless it
     * rejoined since; force-closes the endpoint (with peer error handling on), which fails what UCX still holds for
     * it. Idempotent; never inside UCX progress.
     */
    private void retire(final int peer, final int incarnation)
    {
        if (peers.incarnation(peer) != incarnation || !peers.state(peer).lost())
        {
            return;
        }
        remoteWindows.retire(peer, endpoint ->
        {
            if (config.peerErrorHandling())
            {
                endpoint.closeNonBlockingForce();
            }
        });
    }

    /**
     * A loss that UCX reported (an endpoint error, or a failed request's status). Logged at DEBUG only: a peer that
     * closes its transport looks the same to UCX; the {@link FailureDetector} tells a crash from a goodbye and warns.
     */
    private void lostByUcx(final int peer, final int incarnation, final String reason)
    {
        if (peerLost(peer, incarnation, reason))
        {
            LOG.log(Level.DEBUG, () -> "spillway-rdma: rank " + rank + " lost rank " + peer + " incarnation " +
                incarnation + ": " + reason);
        }
    }

    // ---- close ----

    @Override
    public void onClose()
    {
        if (remoteWindows != null)
        {
            remoteWindows.closing();
        }
        else
        {
            peers.startClosing();
        }
        synchronized (commands)
        {
            closing = true;
        }
        Runnable command;
        while ((command = commands.poll()) != null)
        {
            command.run();
        }
        if (worker != null)
        {
            pending.failAll(rank);
            atomicRequests.clear();
            internalReceives.forEach(InternalReceive::cancel);
            awaitClosed(peers.closeAll());
            remoteWindows.close();
            localWindows.close();
            worker.close();
        }
        if (context != null)
        {
            context.close();
        }
    }

    /** Progresses the worker until the endpoints closed, or for the operation timeout (2 s at most). */
    private void awaitClosed(final List<UcpRequest> closes)
    {
        final long deadline = System.nanoTime() + Math.min(timeoutNanos, MAX_CLOSE_NANOS);
        try
        {
            while (System.nanoTime() - deadline < 0 && closes.stream().anyMatch(r -> r != null && !r.isCompleted()))
            {
                worker.progress();
            }
        }
        catch (final Exception ex)
        {
            LOG.log(Level.WARNING, "spillway-rdma: rank " + rank + " progress while closing: " + ex);
        }
    }
}
