package dev.spillway.rdma;

import org.agrona.BufferUtil;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpRemoteKey;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.StampedLock;
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
            }
            finally
            {
                guard.unlockRead(stamp);
            }
            if (!(agent.onAgentThread() ? unpack(target, operation) : unpackOnAgent(target, operation)))
            {
                return;
            }
        }
    }

    private boolean unpackOnAgent(final WindowHandle target, final String operation)
    {
        try
        {
            return agent.call(() -> unpack(target, operation)).get(timeoutMs, TimeUnit.MILLISECONDS);
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

    CompletableFuture<Void> flush(final int target)
    {
        final CompletableFuture<Void> future = new CompletableFuture<>();
        final String what = "flush from rank " + rank + " to rank " + target;
        final TransportException error = errors.getAndSet(target, null);
        if (error != null)
        {
            inFlight.get(target).take();
            future.completeExceptionally(error);
            return future;
        }
        final CallerFlush flush;
        final long stamp = guard.readLock();
        try
        {
            final String refused = peers.closing() ? "this rank is closing" : peers.lostReason(target);
            if (refused != null)
            {
                inFlight.get(target).take();
                return CompletableFuture.failedFuture(new PeerFailedException(peers.closing() ? rank : target, what,
                    refused));
            }
            final PendingOp<Void> op = pending.newOp(target, what, future, null, inFlight.get(target).take(), request -> null);
            flush = new CallerFlush(op);
            flush.start(() -> peers.endpoint(target).flushNonBlocking(flush));
            if (!flush.endedOnCaller())
            {
                agent.submit(() -> pending.trackUnlessDone(op));
            }
        }
        finally
        {
            guard.unlockRead(stamp);
        }
        flush.completeOnCaller(agent);
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
     * Takes the lost {@code owner}'s endpoint and unpacked keys out of use and releases the keys; the caller closes
     * the endpoint. Outside UCX progress.
     *
     * @return the endpoint, or null when there is none.
     */
    UcpEndpoint retire(final int owner)
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
        keys.forEach(UcpRemoteKey::close);
        return endpoint;
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
    }
}
