package dev.spillway.rdma;

import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Two-sided tagged messages, on the agent thread. A message is two IO vectors, the {@link Header} ({@link
 * HeaderDescriptor}) and the payload, so the payload goes from and into the caller's buffers without a copy; the
 * tag is laid out as {@link TagCodec} says, with the sender's rank and incarnation.
 *
 * <p>A receive from one rank matches only that rank's current incarnation. A receive from any rank can match a
 * message of a lost incarnation: the {@link Fence} drops it and the receive is posted again, into the same buffers
 * (bytes past the message finally received may so hold a dropped message's).
 */
final class TaggedMessages
{
    private final int rank;
    private final int incarnation;
    private final UcpWorker worker;
    private final UcxPeers peers;
    private final PendingOperations pending;
    private final SmallBuffers smallBuffers;
    private final Fence fence;
    private final Executor later;

    /**
     * @param fence drops messages of lost incarnations.
     * @param later runs a command on the agent thread after the current one (outside UCX's callbacks).
     */
    TaggedMessages(final TransportConfig config, final UcpWorker worker, final UcxPeers peers,
        final PendingOperations pending, final SmallBuffers smallBuffers, final Fence fence, final Executor later)
    {
        this.rank = config.rank();
        this.incarnation = config.incarnation();
        this.worker = worker;
        this.peers = peers;
        this.pending = pending;
        this.smallBuffers = smallBuffers;
        this.fence = fence;
        this.later = later;
    }

    void send(final int target, final Header header, final ByteBuffer src, final CompletableFuture<Void> future)
    {
        final String what = "send from rank " + rank + " to rank " + target + " tag " + header.tag();
        if (peers.refuse(target, what, future))
        {
            return;
        }
        final ByteBuffer head = smallBuffers.acquire();
        header.encode(rank, incarnation, src.remaining(), head, 0);
        final PendingOp<Void> op = pending.newOp(target, what, future, head, src, request -> null);
        final int length = src.remaining();
        final long tag = TagCodec.userTag(rank, incarnation, header.tag());
        final long headAddress = UcxUtils.getAddress(head);
        final long[] addresses = length == 0 ? new long[] {headAddress} :
            new long[] {headAddress, UcxUtils.getAddress(src)};
        final long[] sizes = length == 0 ? new long[] {Header.BYTES} : new long[] {Header.BYTES, length};
        pending.issue(op, () -> peers.endpoint(target).sendTaggedNonBlocking(addresses, sizes, tag, op));
    }

    void receive(final int source, final int tag, final ByteBuffer dst, final CompletableFuture<Message> future)
    {
        final String what = "receive at rank " + rank + " tag " + tag + " from " +
            (source == Transport.ANY_SOURCE ? "any rank" : "rank " + source);
        if (source != Transport.ANY_SOURCE && peers.refuse(source, what, future))
        {
            return;
        }
        final ByteBuffer head = smallBuffers.acquire();
        final int capacity = dst.remaining();
        final PendingOp<Message> op = pending.newOp(source, what, future, head, dst,
            request -> new Message(Header.decode(head, 0), Header.payloadLength(head, 0)));
        op.capacity = capacity;
        op.cancelWhenAbandoned();
        final long matchTag = TagCodec.receiveTag(source, source == Transport.ANY_SOURCE ? 0 :
            peers.incarnation(source), tag);
        final long mask = TagCodec.receiveMask(source);
        final long[] addresses = capacity == 0 ? new long[] {UcxUtils.getAddress(head)} :
            new long[] {UcxUtils.getAddress(head), UcxUtils.getAddress(dst)};
        final long[] sizes = capacity == 0 ? new long[] {Header.BYTES} : new long[] {Header.BYTES, capacity};
        final Supplier<UcpRequest> start = () -> worker.recvTaggedNonBlocking(addresses, sizes, matchTag, mask, op);
        if (source == Transport.ANY_SOURCE)
        {
            op.retry(request ->
            {
                final Header header = Header.decode(head, 0);
                if (fence.admits(header.rank(), header.incarnation()))
                {
                    return false;
                }
                later.execute(() -> repost(op, start));
                return true;
            });
        }
        pending.issue(op, start);
    }

    /** Posts a receive again after it matched a dropped message, unless it was abandoned meanwhile. */
    private void repost(final PendingOp<Message> op, final Supplier<UcpRequest> start)
    {
        if (op.future.isDone())
        {
            op.release();
            return;
        }
        pending.issue(op, start);
    }
}
