package dev.spillway.rdma;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Ranks living in one JVM, connected by memory copies: the reference implementation of the {@link Transport}
 * contract and the transport for single-process tests. A send waits for its matching receive and is copied straight
 * into the receive buffer (no intermediate copy); puts and gets copy at once; atomics apply at once through
 * VarHandles. {@link #kill} simulates a crash.
 */
public final class InProcessFabric implements AutoCloseable
{
    private final int size;
    private final long timeoutMs;
    private final InProcessTransport[] ranks;
    private final AtomicReferenceArray<String> lost;
    private final List<List<SendOp>> unexpected = new ArrayList<>();
    private final List<List<RecvOp>> posted = new ArrayList<>();
    private final List<Map<Integer, Window>> windows = new ArrayList<>();
    private final ScheduledThreadPoolExecutor timer;
    private final AtomicInteger windowIds = new AtomicInteger();

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
        this.lost = new AtomicReferenceArray<>(size);
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
            ranks[r] = new InProcessTransport(this, r);
        }
    }

    /** @return rank {@code r}'s transport. */
    public Transport transport(final int r)
    {
        return ranks[r];
    }

    /** @return ranks. */
    public int size()
    {
        return size;
    }

    /**
     * Simulates the crash of rank {@code r}: its memory is gone and every operation involving it fails.
     *
     * @param r the victim.
     * @param reason for the error messages.
     */
    public void kill(final int r, final String reason)
    {
        final List<Runnable> done = new ArrayList<>();
        synchronized (this)
        {
            if (!lost.compareAndSet(r, null, reason))
            {
                return;
            }
            windows.get(r).clear();
            for (int m = 0; m < size; m++)
            {
                for (final Iterator<SendOp> it = unexpected.get(m).iterator(); it.hasNext(); )
                {
                    final SendOp s = it.next();
                    if (s.source == r || m == r)
                    {
                        it.remove();
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

    /** Stops the timer; pending operations stay as they are. */
    @Override
    public void close()
    {
        for (int r = 0; r < size; r++)
        {
            kill(r, "the fabric was closed");
        }
        timer.shutdownNow();
    }

    String lostReason(final int r)
    {
        return lost.get(r);
    }

    int nextWindowId()
    {
        return windowIds.incrementAndGet();
    }

    Map<Integer, Window> windowsOf(final int r)
    {
        return windows.get(r);
    }

    CompletableFuture<Void> send(final int source, final int target, final Header header, final ByteBuffer src)
    {
        final SendOp op = new SendOp(source, target, header, src.duplicate());
        final List<Runnable> done = new ArrayList<>();
        synchronized (this)
        {
            final PeerFailedException failure = failure(source, target, "send to rank " + target + " tag " +
                header.tag());
            if (failure != null)
            {
                op.future.completeExceptionally(failure);
                return op.future;
            }
            final RecvOp match = takeMatch(posted.get(target), source, header.tag());
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

    CompletableFuture<Message> receive(final int receiver, final int source, final int tag, final ByteBuffer dst)
    {
        final RecvOp op = new RecvOp(receiver, source, tag, dst.duplicate());
        final List<Runnable> done = new ArrayList<>();
        synchronized (this)
        {
            final PeerFailedException failure = failure(receiver,
                source == Transport.ANY_SOURCE ? receiver : source, "receive at rank " + receiver + " tag " + tag);
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

    /** The first failure among {@code self} (this rank died) and {@code peer}, or null. */
    PeerFailedException failure(final int self, final int peer, final String operation)
    {
        final String selfLost = lost.get(self);
        if (selfLost != null)
        {
            return new PeerFailedException(self, operation, selfLost);
        }
        final String peerLost = lost.get(peer);
        return peerLost == null ? null : new PeerFailedException(peer, operation, peerLost);
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
            final Message message = new Message(new Header(send.source, send.header.tag(), send.header.epoch(),
                send.header.phase(), send.header.seq()), length);
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
        final int target;
        final Header header;
        final ByteBuffer src;
        final CompletableFuture<Void> future = new CompletableFuture<>();
        ScheduledFuture<?> timeout;

        SendOp(final int source, final int target, final Header header, final ByteBuffer src)
        {
            this.source = source;
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
