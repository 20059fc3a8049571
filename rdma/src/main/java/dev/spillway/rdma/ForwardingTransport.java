package dev.spillway.rdma;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/** A transport that forwards every call to another: a decorator extends it and overrides what it changes. */
public abstract class ForwardingTransport implements Transport
{
    private final Transport inner;

    /** @param inner the transport every call goes to unless overridden. */
    protected ForwardingTransport(final Transport inner)
    {
        this.inner = inner;
    }

    /** @return the transport this one forwards to. */
    protected final Transport inner()
    {
        return inner;
    }

    @Override
    public int rank()
    {
        return inner.rank();
    }

    @Override
    public int size()
    {
        return inner.size();
    }

    @Override
    public int incarnation()
    {
        return inner.incarnation();
    }

    @Override
    public int incarnation(final int rank)
    {
        return inner.incarnation(rank);
    }

    @Override
    public CompletableFuture<Void> send(final int target, final Header header, final ByteBuffer src)
    {
        return inner.send(target, header, src);
    }

    @Override
    public CompletableFuture<Message> receive(final int source, final int tag, final ByteBuffer dst)
    {
        return inner.receive(source, tag, dst);
    }

    @Override
    public Window createWindow(final String name, final int size)
    {
        return inner.createWindow(name, size);
    }

    @Override
    public Window registerWindow(final String name, final ByteBuffer memory)
    {
        return inner.registerWindow(name, memory);
    }

    @Override
    public void put(final WindowHandle target, final long offset, final ByteBuffer src)
    {
        inner.put(target, offset, src);
    }

    @Override
    public void get(final WindowHandle target, final long offset, final ByteBuffer dst)
    {
        inner.get(target, offset, dst);
    }

    @Override
    public CompletableFuture<Void> flush(final int target)
    {
        return inner.flush(target);
    }

    @Override
    public CompletableFuture<Void> flushAll()
    {
        return inner.flushAll();
    }

    @Override
    public CompletableFuture<Long> fetchAndAdd(final WindowHandle target, final long offset, final long delta)
    {
        return inner.fetchAndAdd(target, offset, delta);
    }

    @Override
    public CompletableFuture<Long> compareAndSwap(final WindowHandle target, final long offset, final long expected,
        final long update)
    {
        return inner.compareAndSwap(target, offset, expected, update);
    }

    @Override
    public String lostReason(final int rank)
    {
        return inner.lostReason(rank);
    }

    @Override
    public String selfLostReason()
    {
        return inner.selfLostReason();
    }

    @Override
    public void addPeerListener(final PeerListener listener)
    {
        inner.addPeerListener(listener);
    }

    @Override
    public void removePeerListener(final PeerListener listener)
    {
        inner.removePeerListener(listener);
    }

    @Override
    public long fencedMessages()
    {
        return inner.fencedMessages();
    }

    @Override
    public void close()
    {
        inner.close();
    }
}
