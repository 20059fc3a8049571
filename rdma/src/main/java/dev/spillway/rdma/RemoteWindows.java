package dev.spillway.rdma;

import org.agrona.BufferUtil;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpRemoteKey;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.StampedLock;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Puts into and gets from peers' windows, and the flushes that complete them, issued on the caller's thread (the
 * worker is thread-safe): a small put costs a UCX call, not a hand-off to the agent. Puts and gets are implicit (no
 * request each): a flush to a rank completes all of them, keeps their buffers reachable until then, and reports the
 * first error recorded since the previous flush (a lost owner, a handle of an owner's earlier incarnation, a key
 * that does not unpack). A flush that UCX completes at once (shared memory) completes on the caller's thread too;
 * one that does not is tracked by the agent for its deadline and peer loss.
 *
 * <p>Callers touch endpoints and unpacked keys only under a read lock, after checking that the owner is reachable.
 * The agent changes them under the write lock ({@link #retire}, {@link #closing}, a rejoin), never from inside UCX
 * progress: progress holds the worker's lock, which a caller's put under the read lock may be waiting for. Keys are
 * unpacked on the agent, once per window and owner incarnation.
 */
final class RemoteWindows
{
    private final int size;
    private final int rank;
    private final UcxPeers peers;
    private final PendingOperations pending;
    private final UcxAgent agent;
    private final long timeoutMs;
    private final StampedLock guard = new StampedLock();
    private final Map<Long, UcpRemoteKey> remoteKeys = new ConcurrentHashMap<>();
    private final AtomicReferenceArray<TransportException> errors;
    private final List<InFlightBuffers> inFlight = new ArrayList<>();
    /** Buffers of puts and gets to peers lost before their flush. */
    private final Queue<List<ByteBuffer>> retained = new ConcurrentLinkedQueue<>();

    RemoteWindows(final TransportConfig config, final UcxPeers peers, final PendingOperations pending,
        final UcxAgent agent)
    {
        this.size = config.size();
        this.rank = config.rank();
        this.peers = peers;
        this.pending = pending;
        this.agent = agent;
        this.timeoutMs = config.operationTimeout().toMillis();
        this.errors = new AtomicReferenceArray<>(size);
        for (int r = 0; r < size; r++)
        {
            inFlight.add(new InFlightBuffers());
        }
    }

    // ---- on any thread ----

    void put(final WindowHandle target, final long offset, final ByteBuffer src)
    {
        transfer(target, offset, src, true);
    }

    void get(final WindowHandle target, final long offset, final ByteBuffer dst)
    {
        transfer(target, offset, dst, false);
    }

    private void transfer(final WindowHandle target, final long offset, final ByteBuffer buffer, final boolean put)
    {
        final int owner = target.owner();
        final String operation = put ? "put" : "get";
        while (true)
        {
            CompletableFuture<Boolean> unpacked = null;
            final long stamp = guard.readLock();
            try
            {
                final TransportException refused = refusal(target, operation);
                if (refused != null)
                {
                    recordError(owner, refused);
                    return;
                }
                if (buffer.remaining() == 0)
                {
                    return;
                }
                final UcpRemoteKey key = remoteKeys.get(keyId(owner, target.id()));
                if (key != null)
                {
                    issue(target, offset, buffer, put, key);
                    return;
                }
                if (!agent.onAgentThread())
                {
                    // Queued under the read lock, so before a close drains the agent's commands.
                    unpacked = agent.call(() -> unpack(target, operation));
                }
            }
            finally
            {
                guard.unlockRead(stamp);
            }
            if (!(unpacked == null ? unpack(target, operation) : awaitUnpacked(unpacked, target, operation)))
            {
                return;
            }
        }
    }

    private boolean awaitUnpacked(final CompletableFuture<Boolean> unpacked, final WindowHandle target,
        final String operation)
    {
        try
        {
            return unpacked.get(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final Exception ex)
        {
            if (ex instanceof InterruptedException)
            {
                Thread.currentThread().interrupt();
            }
            recordError(target.owner(), new TransportException(operation + " to window '" + target.name() +
                "' of rank " + target.owner() + ": its remote key was not unpacked: " + ex, ex));
            return false;
        }
    }

    private void issue(final WindowHandle target, final long offset, final ByteBuffer buffer, final boolean put,
        final UcpRemoteKey key)
    {
        final int owner = target.owner();
        final long local = BufferUtil.address(buffer) + buffer.position();
        final long remote = target.address() + offset;
        try
        {
            final UcpEndpoint endpoint = peers.endpoint(owner);
            if (put)
            {
                endpoint.putNonBlockingImplicit(local, buffer.remaining(), remote, key);
            }
            else
            {
                endpoint.getNonBlockingImplicit(remote, key, local, buffer.remaining());
            }
            inFlight.get(owner).hold(buffer);
        }
        catch (final RuntimeException ex)
        {
            recordError(owner, new TransportException((put ? "put to" : "get from") + " window '" + target.name() +
                "' of rank " + owner + " failed to start: " + ex, ex));
        }
    }

    /** @return why {@code target} cannot be reached now, or null; under the guard. */
    private TransportException refusal(final WindowHandle target, final String operation)
    {
        final int owner = target.owner();
        if (peers.reachable(owner))
        {
            return target.stale(operation, peers.incarnation(owner));
        }
        return peers.unreachable(owner, operation + " to window '" + target.name() + "'");
    }

    /** @return the cache key of window {@code windowId} of rank {@code owner}. */
    private static long keyId(final int owner, final int windowId)
    {
        return ((long)owner << Integer.SIZE) | Integer.toUnsignedLong(windowId);
    }

    private void recordError(final int owner, final TransportException error)
    {
        errors.compareAndSet(owner, null, error);
    }

    /**
     * Flushes the puts and gets to {@code target}: the future fails with the first error recorded since the last
     * flush, once UCX completed the others. It may be complete on return (shared memory).
     */
    CompletableFuture<Void> flush(final int target)
    {
        final CompletableFuture<Void> future = new CompletableFuture<>();
        final String what = "flush from rank " + rank + " to rank " + target;
        TransportException refused = null;
        CallerFlush flush = null;
        final long stamp = guard.readLock();
        try
        {
            final TransportException error = errors.getAndSet(target, null);
            final String reason = peers.closing() ? "this rank is closing" : peers.lostReason(target);
            if (reason != null)
            {
                // Kept reachable until close: UCX may use them until it failed the lost peer's operations.
                retained.add(inFlight.get(target).take());
                refused = error != null ? error : new PeerFailedException(peers.closing() ? rank : target, what,
                    reason);
            }
            else
            {
                final PendingOp<Void> op = pending.newOp(target, what, future, null, inFlight.get(target).take(),
                    request ->
                    {
                        if (error != null)
                        {
                            throw error;
                        }
                        return null;
                    });
                final CallerFlush started = new CallerFlush(op);
                started.start(() -> peers.endpoint(target).flushNonBlocking(started));
                started.handOver(agent, pending); // under the read lock: queued before a close drains the agent
                flush = started;
            }
        }
        finally
        {
            guard.unlockRead(stamp);
        }
        if (refused != null)
        {
            future.completeExceptionally(refused);
        }
        else
        {
            flush.completeOnCaller();
        }
        return future;
    }

    /** Flushes every rank with puts or gets (or errors) since its last flush. */
    CompletableFuture<Void> flushAll()
    {
        final List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int t = 0; t < size; t++)
        {
            if (errors.get(t) != null || !inFlight.get(t).isEmpty())
            {
                all.add(flush(t));
            }
        }
        final CompletableFuture<Void> future = new CompletableFuture<>();
        CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).whenComplete((v, t) ->
        {
            if (t == null)
            {
                future.complete(null);
            }
            else
            {
                future.completeExceptionally(t instanceof CompletionException ? t.getCause() : t);
            }
        });
        return future;
    }

    // ---- on the agent thread ----

    /** @return true when the key of {@code target} is unpacked, false after recording why it is not. */
    private boolean unpack(final WindowHandle target, final String operation)
    {
        final int owner = target.owner();
        final TransportException refused = refusal(target, operation);
        if (refused != null)
        {
            recordError(owner, refused);
            return false;
        }
        final long id = keyId(owner, target.id());
        if (remoteKeys.containsKey(id))
        {
            return true;
        }
        final byte[] packed = target.remoteKey();
        final ByteBuffer buffer = ByteBuffer.allocateDirect(packed.length);
        buffer.put(packed).flip();
        try
        {
            remoteKeys.put(id, peers.endpoint(owner).unpackRemoteKey(buffer));
            return true;
        }
        catch (final RuntimeException ex)
        {
            recordError(owner, new TransportException(operation + " to window '" + target.name() +
                "' of rank " + owner + ": its remote key does not unpack: " + ex.getMessage(), ex));
            return false;
        }
    }

    /**
     * Takes the lost {@code owner}'s endpoint and unpacked keys out of use, has {@code close} close the endpoint (when
     * there is one), then releases the keys. Outside UCX progress.
     */
    void retire(final int owner, final Consumer<UcpEndpoint> close)
    {
        final List<UcpRemoteKey> keys = new ArrayList<>();
        final UcpEndpoint endpoint = exclusive(() ->
        {
            remoteKeys.entrySet().removeIf(e ->
            {
                if (e.getKey() >>> Integer.SIZE != owner)
                {
                    return false;
                }
                keys.add(e.getValue());
                return true;
            });
            return peers.detach(owner);
        });
        if (endpoint != null)
        {
            close.accept(endpoint);
        }
        keys.forEach(UcpRemoteKey::close);
    }

    /** Once no caller is inside UCX: every operation is refused from now on. */
    void closing()
    {
        exclusive(() ->
        {
            peers.startClosing();
            return null;
        });
    }

    /** Runs {@code change} to the endpoints or keys while no caller uses them; on the agent, outside UCX progress. */
    <T> T exclusive(final Supplier<T> change)
    {
        final long stamp = guard.writeLock();
        try
        {
            return change.get();
        }
        finally
        {
            guard.unlockWrite(stamp);
        }
    }

    /** Releases the unpacked remote keys, after {@link #closing}. */
    void close()
    {
        remoteKeys.values().forEach(UcpRemoteKey::close);
        remoteKeys.clear();
        retained.clear();
    }
}
