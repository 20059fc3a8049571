package dev.spillway.rdma;

import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpTagMessage;
import org.openucx.jucx.ucp.UcpWorker;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Drains the messages of lost incarnations, on the agent thread. No receive posted later matches them (a receive
 * from one rank names its current incarnation, see {@link TagCodec}), so without this they would wait in UCX's
 * unexpected queue forever. Each call of {@link #drain()} probes for every lost incarnation's messages, receives
 * each into a buffer of its own (so that none is truncated) and lets the {@link Fence} count it.
 */
final class StaleMessages
{
    /** Needs no buffer but keeps the received one reachable until UCX is done with it. */
    private static final class Discard extends UcxCallback
    {
        @SuppressWarnings("unused") // only held: reachable while UCX writes into it
        private final ByteBuffer buffer;

        Discard(final ByteBuffer buffer)
        {
            this.buffer = buffer;
        }

        @Override
        public void onSuccess(final UcpRequest request)
        {
        }

        @Override
        public void onError(final int status, final String message)
        {
            // A lost sender may not complete the transfer; the message is dropped all the same.
        }
    }

    /** A lost incarnation of a rank. */
    private record Sender(int rank, int incarnation)
    {
    }

    private final UcpWorker worker;
    private final Fence fence;
    private final List<Sender> lost = new ArrayList<>();

    StaleMessages(final UcpWorker worker, final Fence fence)
    {
        this.worker = worker;
        this.fence = fence;
    }

    /** From now on drains the messages of {@code incarnation} of {@code rank}. */
    void add(final int rank, final int incarnation)
    {
        lost.add(new Sender(rank, incarnation));
    }

    /** @return messages drained. */
    int drain()
    {
        int drained = 0;
        for (final Sender sender : lost)
        {
            final long tag = TagCodec.sender(sender.rank(), sender.incarnation());
            UcpTagMessage message;
            while ((message = worker.tagProbeNonBlocking(tag, TagCodec.SENDER_MASK, true)) != null)
            {
                final ByteBuffer buffer = ByteBuffer.allocateDirect((int)Math.max(1, message.getRecvLength()));
                worker.recvTaggedMessageNonBlocking(UcxUtils.getAddress(buffer), message.getRecvLength(), message,
                    new Discard(buffer));
                fence.drop(sender.rank(), sender.incarnation());
                drained++;
            }
        }
        return drained;
    }
}
