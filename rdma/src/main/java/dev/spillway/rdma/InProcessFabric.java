package dev.spillway.rdma;

import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ranks living in one JVM, connected by memory copies: the reference implementation of the {@link Transport}
 * contract and the transport for single-process tests. A send waits for its matching receive and is copied straight
 * into the receive buffer (no intermediate copy); puts and gets copy at once; atomics apply at once through
 * VarHandles. Every rank starts as incarnation 0.
 *
 * <p>{@link #kill} simulates a crash: the other ranks are told the rank was lost. The killed rank's transport object
 * stays usable as a zombie would: its sends and atomics reach their target, which drops and counts them
 * ({@link Transport#fencedMessages()}), and fail at the zombie; all its other operations fail at once.
 * {@link #revive} brings the rank back as a new incarnation and tells the others it rejoined. Peer events are told
 * on one thread for the whole fabric.
 */
public final class InProcessFabric implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(InProcessFabric.class.getName());

    private final int size;
    private final long timeoutMs;
    /** Each rank's current incarnation; guarded by this. */
    private final InProcessTransport[] ranks;
    private final PeerStates states;
    private final ExecutorService events = PeerEvents.thread("spillway-rdma-inprocess-events");
    private final List<List<SendOp>> unexpected = new ArrayList<>();
    private final List<List<RecvOp>> posted = new ArrayList<>();
    private final List<Map<Integer, Window>> windows = new ArrayList<>();
    private final ScheduledThreadPoolExecutor timer;
    private final AtomicInteger windowIds = new AtomicInteger();
    /** Set by {@link #close}: ranks then die quietly; guarded by this. */
    private boolean closing;

    /**
     * @param size ranks.
     * @param operationTimeout bound on every send, receive and flush.
     */
    public InProcessFabric(final int size, final Duration operationTimeout)
    {
        if (size < 1)
        {
            throw new IllegalArgumentException("size " + size + " < 1");
        }
        this.size = size;
        this.timeoutMs = operationTimeout.toMillis();
        this.states = new PeerStates(size, 0);
        this.ranks = new InProcessTransport[size];
        timer = new ScheduledThreadPoolExecutor(1, r ->
        {
            final Thread t = new Thread(r, "spillway-rdma-inprocess-timer");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        for (int r = 0; r < size; r++)
        {
            unexpected.add(new ArrayList<>());
            posted.add(new ArrayList<>());
            windows.add(new ConcurrentHashMap<>());
            ranks[r] = new InProcessTransport(this, r, 0, new PeerEvents(events));
        }
    }

    /** @return rank {@code r}'s transport: its current incarnation's. */
    public synchronized Transport transport(final int r)
    {
        return ranks[r];
    }

    /** @return ranks. */
    public int size()
    {
        return size;
    }

    /**
     * Simulates the crash of rank {@code r}: its memory is gone, every operation involving it fails, and its messages
     * that no receive matched yet are dropped and counted at their targets.
     *
     * @param r the victim.
     * @param reason for the error messages.
     */
    public void kill(final int r, final String reason)
    {
        final List<Runnable> done = new ArrayList<>();
        synchronized (this)
        {
            final int incarnation = states.incarnation(r);
            if (!states.lose(r, incarnation, reason))
            {
                return;
            }
            publish(PeerEvent.lost(r, incarnation, reason));
            windows.get(r).clear();
            for (int m = 0; m < size; m++)
            {
                for (final Iterator<SendOp> it = unexpected.get(m).iterator(); it.hasNext(); )
                {
                    final SendOp s = it.next();
                    if (s.source == r || m == r)
                    {
                        it.remove();
                        if (m != r && !closing && !states.get(m).lost())
                        {
                            ranks[m].fence().drop(r, incarnation); // as UCX drains a lost rank's waiting messages
                        }
                        done.add(s.fail(new PeerFailedException(r, "send to rank " + m + " tag " +
                            s.header.tag(), reason)));
                    }
                }
                for (final Iterator<RecvOp> it = posted.get(m).iterator(); it.hasNext(); )
                {
                    final RecvOp p = it.next();
                    if (p.source == r || m == r)
                    {
                        it.remove();
                        done.add(p.fail(new PeerFailedException(r, "receive at rank " + m + " tag " + p.tag,
                            reason)));
                    }
                }
            }
        }
        done.forEach(Runnable::run);
    }

    /**
     * Brings killed rank {@code r} back as its next incarnation; the other ranks are told it rejoined.
     *
     * @return the new incarnation's transport.
     * @throws TransportException when the rank is alive (logged, as a coordinator would).
     */
    public synchronized Transport revive(final int r)
    {
        Checks.rank(r, size, "revive");
        return revive(r, states.incarnation(r) + 1);
    }

    /**
     * Brings killed rank {@code r} back as {@code incarnation}; the other ranks are told it rejoined.
     *
     * @return the new incarnation's transport.
     * @throws TransportException when the rank is alive or the incarnation is not higher than the lost one (logged,
     *         as a coordinator would).
     */
    public synchronized Transport revive(final int r, final int incarnation)
    {
        Checks.rank(r, size, "revive");
        final PeerStates.State state = states.get(r);
        if (!states.rejoin(r, incarnation))
        {
            final String why = state.lost() ? "incarnation " + incarnation + " is not higher than the lost " +
                "incarnation " + state.incarnation() : "rank " + r + " is alive (incarnation " + state.incarnation() +
                "); only a lost rank can be revived";
            LOG.log(Level.WARNING, "spillway-rdma: in-process fabric refused to revive rank " + r + " as incarnation " +
                incarnation + ": " + why);
            throw new TransportException("reviving rank " + r + " as incarnation " + incarnation + " refused: " + why);
        }
        ranks[r] = new InProcessTransport(this, r, incarnation, new PeerEvents(events));
        publish(PeerEvent.rejoined(r, incarnation));
        return ranks[r];
    }

    /** Tells every live rank but the one it is about of {@code event}; under the lock, so events keep order. */
    private void publish(final PeerEvent event)
    {
        for (final InProcessTransport t : ranks)
        {
            if (t.rank() != event.rank() && !states.get(t.rank()).lost())
            {
                t.events().publish(event);
            }
        }
    }

    /** Stops the timer and the event thread; pending operations stay as they are. */
    @Override
    public void close()
    {
        synchronized (this)
        {
            closing = true;
        }
        events.shutdownNow();
        for (int r = 0; r < size; r++)
        {
            kill(r, "the fabric was closed");
        }
        timer.shutdownNow();
    }

    String lostReason(final int r)
    {
        return states.lostReason(r);
    }

    int incarnation(final int r)
    {
        return states.incarnation(r);
    }

    PeerStates states()
    {
        return states;
    }

    /** Closes {@code t}: kills its rank when it is the current incarnation; a zombie only stops. */
    synchronized void close(final InProcessTransport t)
    {
        if (ranks[t.rank()] == t)
        {
            kill(t.rank(), PeerEvent.CLOSED);
        }
    }

    int nextWindowId()
    {
        return windowIds.incrementAndGet();
    }

    Map<Integer, Window> windowsOf(final int r)
    {
        return windows.get(r);
    }

    CompletableFuture<Void> send(final InProcessTransport from, final int target, final Header header,
        final ByteBuffer src)
    {
        final SendOp op = new SendOp(from.rank(), from.incarnation(), target, header, src.duplicate());
        final List<Runnable> done = new ArrayList<>();
        synchronized (this)
        {
            final PeerFailedException failure = message(from, target, "send to rank " + target + " tag " +
                header.tag());
            if (failure != null)
            {
                op.future.completeExceptionally(failure);
                return op.future;
            }
            final RecvOp match = takeMatch(posted.get(target), from.rank(), header.tag());
            if (match == null)
            {
                unexpected.get(target).add(op);
                op.timeout = timer.schedule(() -> expire(op), timeoutMs, TimeUnit.MILLISECONDS);
            }
            else
            {
                deliver(op, match, done);
            }
        }
        done.forEach(Runnable::run);
        return op.future;
    }

    CompletableFuture<Message> receive(final InProcessTransport to, final int source, final int tag,
        final ByteBuffer dst)
    {
        final int receiver = to.rank();
        final RecvOp op = new RecvOp(receiver, source, tag, dst.duplicate());
        final List<Runnable> done = new ArrayList<>();
        synchronized (this)
        {
            final PeerFailedException failure = failure(to, source == Transport.ANY_SOURCE ? receiver : source,
                "receive at rank " + receiver + " tag " + tag);
            if (failure != null)
            {
                op.future.completeExceptionally(failure);
                return op.future;
            }
            SendOp match = null;
            for (final Iterator<SendOp> it = unexpected.get(receiver).iterator(); it.hasNext(); )
            {
                final SendOp s = it.next();
                if (s.header.tag() == tag && (source == Transport.ANY_SOURCE || s.source == source))
                {
                    it.remove();
                    match = s;
                    break;
                }
            }
            if (match == null)
            {
                posted.get(receiver).add(op);
                op.timeout = timer.schedule(() -> expire(op), timeoutMs, TimeUnit.MILLISECONDS);
            }
            else
            {
                deliver(match, op, done);
            }
        }
        done.forEach(Runnable::run);
        return op.future;
    }

    /**
     * The first failure among {@code self} (its incarnation was lost or replaced) and {@code peer}, or null.
     */
    PeerFailedException failure(final InProcessTransport self, final int peer, final String operation)
    {
        final PeerStates.State mine = states.get(self.rank());
        if (self.incarnation() < mine.incarnation())
        {
            return new PeerFailedException(self.rank(), operation, "its incarnation " + self.incarnation() +
                " was replaced by incarnation " + mine.incarnation());
        }
        if (mine.lost())
        {
            return new PeerFailedException(self.rank(), operation, mine.lostReason());
        }
        final String peerLost = states.lostReason(peer);
        return peerLost == null ? null : new PeerFailedException(peer, operation, peerLost);
    }

    /**
     * {@link #failure} of a message (or atomic request) from {@code from} to {@code target}. A zombie's message
     * reaches a live target, which drops and counts it.
     */
    synchronized PeerFailedException message(final InProcessTransport from, final int target, final String operation)
    {
        final PeerFailedException failure = failure(from, target, operation);
        if (failure != null && failure.rank() == from.rank() && !from.closed() && states.lostReason(target) == null)
        {
            ranks[target].fence().drop(from.rank(), from.incarnation());
        }
        return failure;
    }

    private static RecvOp takeMatch(final List<RecvOp> list, final int source, final int tag)
    {
        for (final Iterator<RecvOp> it = list.iterator(); it.hasNext(); )
        {
            final RecvOp r = it.next();
            if (r.tag == tag && (r.source == Transport.ANY_SOURCE || r.source == source))
            {
                it.remove();
                return r;
            }
        }
        return null;
    }

    private static void deliver(final SendOp send, final RecvOp recv, final List<Runnable> done)
    {
        final int length = send.src.remaining();
        if (length > recv.dst.remaining())
        {
            done.add(recv.fail(new TransportException("receive at rank " + recv.receiver + " tag " + recv.tag +
                ": message of " + length + " bytes from rank " + send.source + " exceeds the buffer's " +
                recv.dst.remaining() + " bytes")));
        }
        else
        {
            recv.dst.put(send.src);
            final Message message = new Message(send.header.stamped(send.source, send.incarnation), length);
            done.add(recv.succeed(message));
        }
        done.add(send.succeed());
    }

    private void expire(final SendOp op)
    {
        final boolean removed;
        synchronized (this)
        {
            removed = unexpected.get(op.target).remove(op);
        }
        if (removed)
        {
            op.future.completeExceptionally(new TransportTimeoutException(op.target, "send from rank " + op.source +
                " tag " + op.header.tag() + " (no matching receive)", timeoutMs));
        }
    }

    private void expire(final RecvOp op)
    {
        final boolean removed;
        synchronized (this)
        {
            removed = posted.get(op.receiver).remove(op);
        }
        if (removed)
        {
            op.future.completeExceptionally(new TransportTimeoutException(op.source, "receive at rank " +
                op.receiver + " tag " + op.tag, timeoutMs));
        }
    }

    private static final class SendOp
    {
        final int source;
        final int incarnation;
        final int target;
        final Header header;
        final ByteBuffer src;
        final CompletableFuture<Void> future = new CompletableFuture<>();
        ScheduledFuture<?> timeout;

        SendOp(final int source, final int incarnation, final int target, final Header header, final ByteBuffer src)
        {
            this.source = source;
            this.incarnation = incarnation;
            this.target = target;
            this.header = header;
            this.src = src;
        }

        Runnable succeed()
        {
            cancelTimeout(timeout);
            return () -> future.complete(null);
        }

        Runnable fail(final Throwable t)
        {
            cancelTimeout(timeout);
            return () -> future.completeExceptionally(t);
        }
    }

    private static final class RecvOp
    {
        final int receiver;
        final int source;
        final int tag;
        final ByteBuffer dst;
        final CompletableFuture<Message> future = new CompletableFuture<>();
        ScheduledFuture<?> timeout;

        RecvOp(final int receiver, final int source, final int tag, final ByteBuffer dst)
        {
            this.receiver = receiver;
            this.source = source;
            this.tag = tag;
            this.dst = dst;
        }

        Runnable succeed(final Message message)
        {
            cancelTimeout(timeout);
            return () -> future.complete(message);
        }

        Runnable fail(final Throwable t)
        {
            cancelTimeout(timeout);
            return () -> future.completeExceptionally(t);
        }
    }

    private static void cancelTimeout(final ScheduledFuture<?> timeout)
    {
        if (timeout != null)
        {
            timeout.cancel(false);
        }
    }
}
