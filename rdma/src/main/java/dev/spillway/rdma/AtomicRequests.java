package dev.spillway.rdma;

import org.agrona.collections.Long2ObjectHashMap;
import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpRequest;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import static dev.spillway.rdma.AtomicsDescriptor.OPERAND_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.OPERATION_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.REPLY_REQUEST_ID_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.REPLY_STATUS_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.REPLY_VALUE_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.REQUESTER_INCARNATION_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.REQUESTER_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.REQUEST_ID_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.REQUEST_LENGTH;
import static dev.spillway.rdma.AtomicsDescriptor.REQUEST_MESSAGE;
import static dev.spillway.rdma.AtomicsDescriptor.STATUS_NO_WINDOW;
import static dev.spillway.rdma.AtomicsDescriptor.STATUS_OK;
import static dev.spillway.rdma.AtomicsDescriptor.UPDATE_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.WINDOW_ID_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.WORD_OFFSET_OFFSET;

/**
 * The requesting side of the emulated atomics, on the agent thread: sends a request to the window owner's
 * {@link AtomicService} and completes the future when the reply with the same id comes back. The request is a
 * {@link PendingOperations pending operation} of the owner, so it fails on the deadline or the owner's loss.
 */
final class AtomicRequests
{
    private final int rank;
    private final int incarnation;
    private final UcxPeers peers;
    private final PendingOperations pending;
    private final SmallBuffers smallBuffers;
    private final Long2ObjectHashMap<PendingOp<Long>> inFlight = new Long2ObjectHashMap<>();
    private long nextId;

    AtomicRequests(final TransportConfig config, final UcxPeers peers, final PendingOperations pending,
        final SmallBuffers smallBuffers)
    {
        this.rank = config.rank();
        this.incarnation = config.incarnation();
        this.peers = peers;
        this.pending = pending;
        this.smallBuffers = smallBuffers;
    }

    /**
     * Sends one atomic to the owner of {@code target}.
     *
     * @param operation {@link AtomicsDescriptor#FETCH_AND_ADD} or {@link AtomicsDescriptor#COMPARE_AND_SWAP}.
     * @param operand the delta, or the expected value.
     * @param update the value to store (compare-and-swap only).
     * @param future completed with the word's previous value.
     */
    void request(final int operation, final WindowHandle target, final long offset, final long operand,
        final long update, final CompletableFuture<Long> future)
    {
        final int owner = target.owner();
        final String what = AtomicsDescriptor.operationName(operation) + " on window '" + target.name() +
            "' of rank " + owner + " at offset " + offset;
        if (peers.refuse(owner, what, future))
        {
            return;
        }
        final TransportException stale = target.stale(AtomicsDescriptor.operationName(operation),
            peers.incarnation(owner));
        if (stale != null)
        {
            future.completeExceptionally(stale);
            return;
        }
        final long id = ++nextId;
        final ByteBuffer request = smallBuffers.acquire();
        request.putInt(OPERATION_OFFSET, operation).putInt(WINDOW_ID_OFFSET, target.id()).putLong(REQUEST_ID_OFFSET, id)
            .putLong(WORD_OFFSET_OFFSET, offset).putLong(OPERAND_OFFSET, operand).putLong(UPDATE_OFFSET, update)
            .putInt(REQUESTER_OFFSET, rank).putInt(REQUESTER_INCARNATION_OFFSET, incarnation);
        final PendingOp<Long> op = pending.newOp(owner, what, future, null, null, r -> null);
        pending.track(op);
        inFlight.put(id, op);
        final UcxCallback sent = new UcxCallback()
        {
            @Override
            public void onSuccess(final UcpRequest r)
            {
                smallBuffers.release(request);
            }

            @Override
            public void onError(final int status, final String message)
            {
                smallBuffers.release(request);
                if (inFlight.remove(id) != null && pending.untrack(op))
                {
                    op.future.completeExceptionally(pending.failure(op, status, message));
                }
            }
        };
        peers.endpoint(owner).sendTaggedNonBlocking(UcxUtils.getAddress(request), REQUEST_LENGTH,
            TagCodec.internalTag(rank, incarnation, REQUEST_MESSAGE), sent);
    }

    /** Completes the request that {@code reply} answers, unless it failed meanwhile. */
    void complete(final ByteBuffer reply)
    {
        final PendingOp<Long> op = inFlight.remove(reply.getLong(REPLY_REQUEST_ID_OFFSET));
        if (op == null || !pending.untrack(op))
        {
            return;
        }
        final int status = reply.getInt(REPLY_STATUS_OFFSET);
        if (status == STATUS_OK)
        {
            op.future.complete(reply.getLong(REPLY_VALUE_OFFSET));
        }
        else
        {
            op.future.completeExceptionally(new TransportException(op.what + " refused by the owner: " +
                (status == STATUS_NO_WINDOW ? "the window is not registered there (closed?)" :
                    "offset outside the window")));
        }
    }

    /** Forgets the requests to the lost {@code peer}: their pending operations fail. */
    void forgetPeer(final int peer)
    {
        inFlight.values().removeIf(op -> op.rank == peer);
    }

    /** Forgets {@code op} (it expired): a late reply finds nothing. */
    void forget(final PendingOp<?> op)
    {
        inFlight.values().remove(op);
    }

    /** Forgets every request: the transport is closing. */
    void clear()
    {
        inFlight.clear();
    }
}
