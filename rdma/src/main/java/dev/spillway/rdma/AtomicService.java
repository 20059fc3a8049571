package dev.spillway.rdma;

import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpRequest;

import java.nio.ByteBuffer;

import static dev.spillway.rdma.AtomicsDescriptor.FETCH_AND_ADD;
import static dev.spillway.rdma.AtomicsDescriptor.OPERAND_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.OPERATION_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.REPLY_LENGTH;
import static dev.spillway.rdma.AtomicsDescriptor.REPLY_MESSAGE;
import static dev.spillway.rdma.AtomicsDescriptor.REPLY_REQUEST_ID_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.REPLY_STATUS_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.REPLY_VALUE_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.REQUESTER_INCARNATION_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.REQUESTER_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.REQUEST_ID_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.STATUS_BAD_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.STATUS_NO_WINDOW;
import static dev.spillway.rdma.AtomicsDescriptor.STATUS_OK;
import static dev.spillway.rdma.AtomicsDescriptor.UPDATE_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.WINDOW_ID_OFFSET;
import static dev.spillway.rdma.AtomicsDescriptor.WORD_OFFSET_OFFSET;

/**
 * The owner's side of the emulated atomics, on the agent thread: applies a peer's request to a local window with a
 * VarHandle atomic ({@link LongWords}) and replies with the previous value or why it was refused. JUCX exposes no
 * UCX atomics, so this is how remote atomics work. A request of a lost incarnation is dropped unapplied.
 */
final class AtomicService
{
    private final int rank;
    private final int incarnation;
    private final UcxPeers peers;
    private final LocalWindows windows;
    private final SmallBuffers smallBuffers;
    private final Fence fence;

    AtomicService(final TransportConfig config, final UcxPeers peers, final LocalWindows windows,
        final SmallBuffers smallBuffers, final Fence fence)
    {
        this.rank = config.rank();
        this.incarnation = config.incarnation();
        this.peers = peers;
        this.windows = windows;
        this.smallBuffers = smallBuffers;
        this.fence = fence;
    }

    /**
     * Applies {@code request} and replies to its requester, unless that incarnation is lost (the fence drops the
     * request), the requester cannot be replied to, or this rank is closing.
     */
    void serve(final ByteBuffer request)
    {
        final int requester = request.getInt(REQUESTER_OFFSET);
        if (!fence.admits(requester, request.getInt(REQUESTER_INCARNATION_OFFSET)) ||
            peers.lostReason(requester) != null || peers.closing())
        {
            return; // also a newer incarnation this rank has not heard rejoin yet: it has no endpoint to reply on
        }
        final Window window = windows.get(request.getInt(WINDOW_ID_OFFSET));
        final long id = request.getLong(REQUEST_ID_OFFSET);
        final long offset = request.getLong(WORD_OFFSET_OFFSET);
        long value = 0;
        int status = STATUS_OK;
        if (window == null)
        {
            status = STATUS_NO_WINDOW;
        }
        else if (offset < 0 || offset > window.size() - Long.BYTES || (offset & (Long.BYTES - 1)) != 0)
        {
            status = STATUS_BAD_OFFSET;
        }
        else if (request.getInt(OPERATION_OFFSET) == FETCH_AND_ADD)
        {
            value = LongWords.getAndAdd(window.memory(), (int)offset, request.getLong(OPERAND_OFFSET));
        }
        else
        {
            value = LongWords.compareAndExchange(window.memory(), (int)offset, request.getLong(OPERAND_OFFSET),
                request.getLong(UPDATE_OFFSET));
        }
        final ByteBuffer reply = smallBuffers.acquire();
        reply.putLong(REPLY_REQUEST_ID_OFFSET, id).putLong(REPLY_VALUE_OFFSET, value)
            .putInt(REPLY_STATUS_OFFSET, status);
        peers.endpoint(requester).sendTaggedNonBlocking(UcxUtils.getAddress(reply), REPLY_LENGTH,
            TagCodec.internalTag(rank, incarnation, REPLY_MESSAGE), new UcxCallback()
            {
                @Override
                public void onSuccess(final UcpRequest r)
                {
                    smallBuffers.release(reply);
                }

                @Override
                public void onError(final int status, final String message)
                {
                    smallBuffers.release(reply);
                }
            });
    }
}
