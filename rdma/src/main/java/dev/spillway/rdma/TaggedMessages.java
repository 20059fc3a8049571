package dev.spillway.rdma;

import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpWorker;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * Two-sided tagged messages, on the agent thread. A message is two IO vectors, the {@link Header} ({@link
 * HeaderDescriptor}) and the payload, so the payload goes from and into the caller's buffers without a copy; the
 * tag is laid out as {@link TagCodec} says.
 */
final class TaggedMessages
{
    private final int rank;
    private final UcpWorker worker;
    private final UcxPeers peers;
    private final PendingOperations pending;
    private final SmallBuffers smallBuffers;

    TaggedMessages(final int rank, final UcpWorker worker, final UcxPeers peers, final PendingOperations pending,
        final SmallBuffers smallBuffers)
    {
        this.rank = rank;
        this.worker = worker;
        this.peers = peers;
        this.pending = pending;
        this.smallBuffers = smallBuffers;
    }

    void send(final int target, final Header header, final ByteBuffer src, final CompletableFuture<Void> future)
    {
        final String what = "send from rank " + rank + " to rank " + target + " tag " + header.tag();
        if (peers.refuse(target, what, future))
        {
            return;
        }
        final ByteBuffer head = smallBuffers.acquire();
        header.encode(rank, src.remaining(), head, 0);
        final PendingOp<Void> op = pending.newOp(target, what, future, head, src, request -> null);
        final int length = src.remaining();
        final long tag = TagCodec.userTag(rank, header.tag());
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
        final long matchTag = TagCodec.receiveTag(source, tag);
        final long mask = TagCodec.receiveMask(source);
        final long[] addresses = capacity == 0 ? new long[] {UcxUtils.getAddress(head)} :
            new long[] {UcxUtils.getAddress(head), UcxUtils.getAddress(dst)};
        final long[] sizes = capacity == 0 ? new long[] {Header.BYTES} : new long[] {Header.BYTES, capacity};
        pending.issue(op, () -> worker.recvTaggedNonBlocking(addresses, sizes, matchTag, mask, op));
    }
}
