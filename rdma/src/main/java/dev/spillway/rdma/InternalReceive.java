package dev.spillway.rdma;

import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucs.UcsConstants;

import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.Consumer;

/**
 * A receive always posted for transport-internal messages of one type from any rank (see {@link TagCodec}),
 * re-posted after each; agent thread only. The handler reads the message before the buffer is reused.
 */
final class InternalReceive extends UcxCallback
{
    private static final System.Logger LOG = System.getLogger(InternalReceive.class.getName());

    private final int rank;
    private final int type;
    private final UcpWorker worker;
    private final UcxPeers peers;
    private final ByteBuffer buffer;
    private final Consumer<ByteBuffer> handler;
    private UcpRequest request;

    /**
     * @param rank this rank, for messages.
     * @param type the internal message type it receives.
     * @param bytes the message length.
     * @param handler takes each message.
     */
    InternalReceive(final int rank, final int type, final int bytes, final UcpWorker worker, final UcxPeers peers,
        final Consumer<ByteBuffer> handler)
    {
        this.rank = rank;
        this.type = type;
        this.worker = worker;
        this.peers = peers;
        this.buffer = ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
        this.handler = handler;
    }

    /** Posts the receive, unless this rank is closing. */
    void post()
    {
        if (!peers.closing())
        {
            request = worker.recvTaggedNonBlocking(UcxUtils.getAddress(buffer), buffer.capacity(),
                TagCodec.internalReceiveTag(type), TagCodec.ANY_SENDER_MASK, this);
        }
    }

    /** Cancels the posted receive. */
    void cancel()
    {
        if (request != null && !request.isCompleted())
        {
            worker.cancelRequest(request);
        }
    }

    @Override
    public void onSuccess(final UcpRequest r)
    {
        handler.accept(buffer);
        post();
    }

    @Override
    public void onError(final int status, final String message)
    {
        if (!peers.closing() && status != UcsConstants.STATUS.UCS_ERR_CANCELED)
        {
            LOG.log(Level.ERROR, "spillway-rdma: rank " + rank + " internal receive failed: " + message);
            post();
        }
    }
}
