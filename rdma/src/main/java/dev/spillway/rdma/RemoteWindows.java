package dev.spillway.rdma;

import org.agrona.collections.Long2ObjectHashMap;
import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpRemoteKey;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Puts into and gets from peers' windows, and the flushes that complete them, on the agent thread. Puts and gets
 * are implicit (no request each): a flush to a rank completes all of them, keeps their buffers reachable until
 * then, and reports the first error recorded since the previous flush (a lost owner, a handle of an owner's earlier
 * incarnation, a key that does not unpack). A lost owner's unpacked keys are released: they belong to its endpoint.
 */
final class RemoteWindows
{
    private final int size;
    private final int rank;
    private final UcxPeers peers;
    private final PendingOperations pending;
    private final Long2ObjectHashMap<UcpRemoteKey> remoteKeys = new Long2ObjectHashMap<>();
    private final boolean[] dirty;
    private final TransportException[] errors;
    private final List<List<ByteBuffer>> inFlight = new ArrayList<>();

    RemoteWindows(final TransportConfig config, final UcxPeers peers, final PendingOperations pending)
    {
        this.size = config.size();
        this.rank = config.rank();
        this.peers = peers;
        this.pending = pending;
        this.dirty = new boolean[size];
        this.errors = new TransportException[size];
        for (int r = 0; r < size; r++)
        {
            inFlight.add(new ArrayList<>());
        }
    }

    void put(final WindowHandle target, final long offset, final ByteBuffer src)
    {
        final int owner = target.owner();
        final UcpRemoteKey key = remoteKey(target, "put");
        if (key != null && src.remaining() > 0)
        {
            peers.endpoint(owner).putNonBlockingImplicit(UcxUtils.getAddress(src), src.remaining(),
                target.address() + offset, key);
            inFlight.get(owner).add(src);
        }
        dirty[owner] = true;
    }

    void get(final WindowHandle target, final long offset, final ByteBuffer dst)
    {
        final int owner = target.owner();
        final UcpRemoteKey key = remoteKey(target, "get");
        if (key != null && dst.remaining() > 0)
        {
            peers.endpoint(owner).getNonBlockingImplicit(target.address() + offset, key, UcxUtils.getAddress(dst),
                dst.remaining());
            inFlight.get(owner).add(dst);
        }
        dirty[owner] = true;
    }

    /** @return the unpacked key of {@code target}, or null after recording why there is none. */
    private UcpRemoteKey remoteKey(final WindowHandle target, final String operation)
    {
        final int owner = target.owner();
        final TransportException unreachable = peers.unreachable(owner, operation + " to window '" +
            target.name() + "'");
        final TransportException error = unreachable != null ? unreachable :
            target.stale(operation, peers.incarnation(owner));
        if (error != null)
        {
            recordError(owner, error);
            return null;
        }
        final long id = keyId(owner, target.id());
        UcpRemoteKey key = remoteKeys.get(id);
        if (key == null)
        {
            final byte[] packed = target.remoteKey();
            final ByteBuffer buffer = ByteBuffer.allocateDirect(packed.length);
            buffer.put(packed).flip();
            try
            {
                key = peers.endpoint(owner).unpackRemoteKey(buffer);
            }
            catch (final RuntimeException ex)
            {
                recordError(owner, new TransportException(operation + " to window '" + target.name() +
                    "' of rank " + owner + ": its remote key does not unpack: " + ex.getMessage(), ex));
                return null;
            }
            remoteKeys.put(id, key);
        }
        return key;
    }

    /** @return the cache key of window {@code windowId} of rank {@code owner}. */
    private static long keyId(final int owner, final int windowId)
    {
        return ((long)owner << Integer.SIZE) | Integer.toUnsignedLong(windowId);
    }

    private void recordError(final int owner, final TransportException error)
    {
        if (errors[owner] == null)
        {
            errors[owner] = error;
        }
    }

    void flush(final int target, final CompletableFuture<Void> future)
    {
        final String what = "flush from rank " + rank + " to rank " + target;
        final TransportException error = errors[target];
        errors[target] = null;
        dirty[target] = false;
        if (error != null)
        {
            inFlight.get(target).clear();
            future.completeExceptionally(error);
            return;
        }
        if (peers.refuse(target, what, future))
        {
            inFlight.get(target).clear();
            return;
        }
        final List<ByteBuffer> buffers = new ArrayList<>(inFlight.get(target));
        inFlight.get(target).clear();
        final PendingOp<Void> op = pending.newOp(target, what, future, null, buffers, request -> null);
        pending.issue(op, () -> peers.endpoint(target).flushNonBlocking(op));
    }

    /** Flushes every rank with puts or gets (or errors) since its last flush. */
    void flushAll(final CompletableFuture<Void> future)
    {
        final List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int t = 0; t < size; t++)
        {
            if (dirty[t] || errors[t] != null || (peers.lostReason(t) == null && !inFlight.get(t).isEmpty()))
            {
                final CompletableFuture<Void> one = new CompletableFuture<>();
                flush(t, one);
                all.add(one);
            }
        }
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
    }

    /** Releases the keys unpacked for the lost {@code owner}'s windows. */
    void forgetPeer(final int owner)
    {
        remoteKeys.entrySet().removeIf(e ->
        {
            if (e.getKey() >>> Integer.SIZE != owner)
            {
                return false;
            }
            e.getValue().close();
            return true;
        });
    }

    /** Releases the unpacked remote keys. */
    void close()
    {
        remoteKeys.values().forEach(UcpRemoteKey::close);
    }
}
