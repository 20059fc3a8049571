package dev.spillway.ranks;

import dev.spillway.rdma.ForwardingTransport;
import dev.spillway.rdma.Header;
import dev.spillway.rdma.Message;
import dev.spillway.rdma.Transport;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A transport whose sends and receives on one tag are posted and never end, as UCX holds a rendezvous send whose
 * receiver has not posted its receive (the send reads its buffer until it ends), or a receive nobody sends to (it may
 * write its buffer until it ends). They end only when the transport closes, which first copies what the buffer held
 * then, and what the engine's tasks waited for.
 */
final class HeldDataTransport extends ForwardingTransport
{
    private final int heldTag;
    private final CompletableFuture<Void> held = new CompletableFuture<>();
    private final CompletableFuture<Message> heldReceive = new CompletableFuture<>();
    private volatile ByteBuffer posted;
    private volatile byte[] atClose;
    private volatile Supplier<String> waits = () -> "not asked";
    private volatile String waitsAtClose;

    HeldDataTransport(final Transport inner, final int heldTag)
    {
        super(inner);
        this.heldTag = heldTag;
    }

    /** @return whether a send or a receive on the held tag was posted. */
    boolean posted()
    {
        return posted != null;
    }

    /** @return whether the held send or receive ended. */
    boolean ended()
    {
        return held.isDone() || heldReceive.isDone();
    }

    /** @param waits what the engine's tasks wait for, asked as the transport closes. */
    void waits(final Supplier<String> waits)
    {
        this.waits = waits;
    }

    /** @return what the engine's tasks waited for as the transport closed, or null before. */
    String waitsAtClose()
    {
        return waitsAtClose;
    }

    /** @return what the held operation's buffer held when the transport closed, or null before. */
    byte[] atClose()
    {
        return atClose;
    }

    @Override
    public CompletableFuture<Void> send(final int target, final Header header, final ByteBuffer src)
    {
        if (header.tag() != heldTag)
        {
            return inner().send(target, header, src);
        }
        posted = src.duplicate();
        return held;
    }

    @Override
    public void close()
    {
        final ByteBuffer b = posted;
        if (b != null && atClose == null)
        {
            waitsAtClose = waits.get();
            final byte[] copy = new byte[b.remaining()];
            b.duplicate().get(copy);
            atClose = copy;
        }
        held.completeExceptionally(new IllegalStateException("the transport closed"));
        heldReceive.completeExceptionally(new IllegalStateException("the transport closed"));
        inner().close();
    }

    @Override
    public CompletableFuture<Message> receive(final int source, final int tag, final ByteBuffer dst)
    {
        if (tag != heldTag)
        {
            return inner().receive(source, tag, dst);
        }
        posted = dst.duplicate();
        return heldReceive;
    }
}
