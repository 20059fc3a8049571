package dev.spillway.rdma;

import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucs.UcsConstants;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The operations waiting for UCX, on the agent thread: starts them, fails those whose deadline passed or whose peer
 * was lost, and maps UCX errors to transport exceptions. Futures are failed outside the iteration over the pending
 * set, since completing one runs callbacks that may issue further operations.
 */
final class PendingOperations
{
    private final Set<PendingOp<?>> pending = new HashSet<>();
    private final UcpWorker worker;
    private final UcxPeers peers;
    private final SmallBuffers smallBuffers;
    private final PeerLossListener ucxLoss;
    private final long timeoutNanos;
    private final long timeoutMs;

    /**
     * @param ucxLoss told when a UCX status says that the peer of an operation failed.
     * @param config supplies the operation timeout.
     */
    PendingOperations(final UcpWorker worker, final UcxPeers peers, final SmallBuffers smallBuffers,
        final PeerLossListener ucxLoss, final TransportConfig config)
    {
        this.worker = worker;
        this.peers = peers;
        this.smallBuffers = smallBuffers;
        this.ucxLoss = ucxLoss;
        this.timeoutNanos = config.operationTimeout().toNanos();
        this.timeoutMs = config.operationTimeout().toMillis();
    }

    /**
     * @param rank the peer the operation depends on, or {@link Transport#ANY_SOURCE}.
     * @param small a pooled buffer to give back once UCX is done, or null.
     * @param keepAlive buffers UCX reads or writes.
     * @return a new operation due within the operation timeout, not yet tracked.
     */
    <T> PendingOp<T> newOp(final int rank, final String what, final CompletableFuture<T> future,
        final ByteBuffer small, final Object keepAlive, final PendingOp.Result<T> result)
    {
        final int incarnation = rank >= 0 ? peers.incarnation(rank) : Header.NO_INCARNATION;
        return new PendingOp<>(this, rank, incarnation, what, future, System.nanoTime() + timeoutNanos, small,
            keepAlive, result);
    }

    /** Tracks {@code op} and starts its UCX request; fails it at once when the start throws. */
    <T> void issue(final PendingOp<T> op, final Supplier<UcpRequest> start)
    {
        pending.add(op);
        try
        {
            op.request = start.get();
        }
        catch (final RuntimeException ex)
        {
            pending.remove(op);
            op.release();
            op.future.completeExceptionally(new TransportException(op.what + " failed to start: " + ex, ex));
        }
    }

    /** Tracks {@code op}, whose completion is reported by other means than its own UCX request. */
    void track(final PendingOp<?> op)
    {
        pending.add(op);
    }

    /**
     * Tracks {@code op}, started on another thread, unless it ended already; fails it when its peer was lost before
     * (its loss failed the operations tracked then).
     */
    void trackUnlessDone(final PendingOp<?> op)
    {
        if (op.future.isDone())
        {
            return;
        }
        if (op.rank >= 0)
        {
            final int current = peers.incarnation(op.rank);
            final String reason = current != op.incarnation ? "replaced by incarnation " + current :
                peers.lostReason(op.rank);
            if (reason != null)
            {
                op.abandon(new PeerFailedException(op.rank, op.what, reason));
                return;
            }
        }
        pending.add(op);
    }

    /** @return true when {@code op} was pending, and is no more. */
    boolean untrack(final PendingOp<?> op)
    {
        return pending.remove(op);
    }

    /** Fails every operation that depends on the lost {@code peer}. */
    void failPeer(final int peer, final String reason)
    {
        final List<PendingOp<?>> failed = new ArrayList<>();
        for (final Iterator<PendingOp<?>> it = pending.iterator(); it.hasNext(); )
        {
            final PendingOp<?> op = it.next();
            if (op.rank == peer)
            {
                it.remove();
                failed.add(op);
            }
        }
        for (final PendingOp<?> op : failed)
        {
            op.abandon(new PeerFailedException(peer, op.what, reason));
        }
    }

    /**
     * Fails the operations whose deadline passed.
     *
     * @param now {@link System#nanoTime()}.
     * @param forget told of each expired operation before it fails.
     */
    void expire(final long now, final Consumer<PendingOp<?>> forget)
    {
        List<PendingOp<?>> expired = null;
        for (final Iterator<PendingOp<?>> it = pending.iterator(); it.hasNext(); )
        {
            final PendingOp<?> op = it.next();
            if (now - op.deadline >= 0)
            {
                it.remove();
                if (op.future.isDone())
                {
                    continue;
                }
                forget.accept(op);
                expired = expired == null ? new ArrayList<>() : expired;
                expired.add(op);
            }
        }
        if (expired != null)
        {
            for (final PendingOp<?> op : expired)
            {
                op.abandon(new TransportTimeoutException(op.rank, op.what, timeoutMs));
            }
        }
    }

    /** Fails every pending operation: this rank ({@code rank}) closed its transport. */
    void failAll(final int rank)
    {
        final List<PendingOp<?>> abandoned = new ArrayList<>(pending);
        pending.clear();
        for (final PendingOp<?> op : abandoned)
        {
            op.abandon(new PeerFailedException(rank, op.what, "this rank closed its transport"));
        }
    }

    /** @return the exception for {@code op}'s failure with a UCX status; declares its peer lost where it failed. */
    TransportException failure(final PendingOp<?> op, final int status, final String message)
    {
        if (op.rank >= 0 && peerFailure(status))
        {
            ucxLoss.lost(op.rank, op.incarnation, "UCX reported " + message + " (status " + status + ")");
        }
        final String reason = op.rank >= 0 ? peers.lostReason(op.rank) : null;
        if (reason != null)
        {
            return new PeerFailedException(op.rank, op.what, reason);
        }
        if (status == UcsConstants.STATUS.UCS_ERR_MESSAGE_TRUNCATED)
        {
            return new TransportException(op.what + ": the message exceeds the buffer's " + op.capacity + " bytes");
        }
        return new TransportException(op.what + " failed: " + message + " (UCX status " + status + ")");
    }

    /** @return true for the UCX statuses that mean the peer (not the request) failed. */
    static boolean peerFailure(final int status)
    {
        return status == UcsConstants.STATUS.UCS_ERR_ENDPOINT_TIMEOUT ||
            status == UcsConstants.STATUS.UCS_ERR_CONNECTION_RESET ||
            status == UcsConstants.STATUS.UCS_ERR_UNREACHABLE ||
            status == UcsConstants.STATUS.UCS_ERR_NOT_CONNECTED ||
            status == UcsConstants.STATUS.UCS_ERR_IO_ERROR;
    }

    /** Cancels a request that UCX would otherwise never end (an abandoned receive). */
    void cancel(final UcpRequest request)
    {
        worker.cancelRequest(request);
    }

    SmallBuffers smallBuffers()
    {
        return smallBuffers;
    }
}
