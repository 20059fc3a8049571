package dev.spillway.rdma;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/** One incarnation of one rank of an {@link InProcessFabric}. */
final class InProcessTransport implements Transport
{
    private static final byte[] NO_KEY = new byte[0];

    private final InProcessFabric fabric;
    private final int rank;
    private final int incarnation;
    private final PeerEvents events;
    private final Fence fence;
    /** First error of an RMA operation per target since its last flush; guarded by this. */
    private final TransportException[] rmaError;
    private volatile boolean closed;

    InProcessTransport(final InProcessFabric fabric, final int rank, final int incarnation, final PeerEvents events)
    {
        this.fabric = fabric;
        this.rank = rank;
        this.incarnation = incarnation;
        this.events = events;
        this.fence = new Fence(rank, fabric.states());
        this.rmaError = new TransportException[fabric.size()];
    }

    @Override
    public int rank()
    {
        return rank;
    }

    @Override
    public int size()
    {
        return fabric.size();
    }

    @Override
    public int incarnation()
    {
        return incarnation;
    }

    @Override
    public int incarnation(final int r)
    {
        Checks.rank(r, size(), "incarnation at rank " + rank);
        return fabric.incarnation(r);
    }

    PeerEvents events()
    {
        return events;
    }

    Fence fence()
    {
        return fence;
    }

    boolean closed()
    {
        return closed;
    }

    @Override
    public CompletableFuture<Void> send(final int target, final Header header, final ByteBuffer src)
    {
        Checks.rank(target, size(), "send from rank " + rank);
        Checks.header(header, rank, incarnation);
        Checks.direct(src, "send from rank " + rank + " tag " + header.tag());
        return fabric.send(this, target, header, src);
    }

    @Override
    public CompletableFuture<Message> receive(final int source, final int tag, final ByteBuffer dst)
    {
        if (source != ANY_SOURCE)
        {
            Checks.rank(source, size(), "receive at rank " + rank);
        }
        Checks.direct(dst, "receive at rank " + rank + " tag " + tag);
        return fabric.receive(this, source, tag, dst);
    }

    @Override
    public Window createWindow(final String name, final int size)
    {
        Checks.windowSize(name, size);
        return expose(name, ByteBuffer.allocateDirect(size));
    }

    @Override
    public Window registerWindow(final String name, final ByteBuffer memory)
    {
        Checks.direct(memory, "window '" + name + "'");
        Checks.windowSize(name, memory.remaining());
        return expose(name, memory.slice());
    }

    private Window expose(final String name, final ByteBuffer memory)
    {
        final int id = fabric.nextWindowId();
        final WindowHandle handle = new WindowHandle(rank, incarnation, id, name, memory.capacity(), 0L, NO_KEY);
        final Window window = new Window(handle, memory, () -> fabric.windowsOf(rank).remove(id));
        fabric.windowsOf(rank).put(id, window);
        return window;
    }

    @Override
    public void put(final WindowHandle target, final long offset, final ByteBuffer src)
    {
        target.checkBounds("put", offset, src.remaining());
        Checks.direct(src, "put to window '" + target.name() + "'");
        final Window window = reach(target, "put");
        if (window != null)
        {
            window.memory().duplicate().position((int)offset).put(src.duplicate());
        }
    }

    @Override
    public void get(final WindowHandle target, final long offset, final ByteBuffer dst)
    {
        target.checkBounds("get", offset, dst.remaining());
        Checks.direct(dst, "get from window '" + target.name() + "'");
        final Window window = reach(target, "get");
        if (window != null)
        {
            dst.duplicate().put(window.memory().duplicate().position((int)offset).limit((int)offset + dst.remaining()));
        }
    }

    /** The target's live window, or null after recording why it cannot be reached (reported by flush). */
    private Window reach(final WindowHandle target, final String operation)
    {
        final String what = operation + " to window '" + target.name() + "' of rank " + target.owner();
        final TransportException failure = unreachable(target, operation, what);
        final Window window = failure == null ? fabric.windowsOf(target.owner()).get(target.id()) : null;
        if (window == null)
        {
            synchronized (this)
            {
                if (rmaError[target.owner()] == null)
                {
                    rmaError[target.owner()] = failure != null ? failure :
                        new TransportException(what + ": the window is not registered there (closed?)");
                }
            }
        }
        return window;
    }

    /** Why {@code target} cannot be reached: a lost rank (this one or the owner), or a stale handle; or null. */
    private TransportException unreachable(final WindowHandle target, final String operation, final String what)
    {
        final PeerFailedException failure = fabric.failure(this, target.owner(), what);
        return failure != null ? failure : target.stale(operation, fabric.incarnation(target.owner()));
    }

    @Override
    public CompletableFuture<Void> flush(final int target)
    {
        Checks.rank(target, size(), "flush at rank " + rank);
        final TransportException error;
        synchronized (this)
        {
            error = rmaError[target];
            rmaError[target] = null;
        }
        final PeerFailedException failure = fabric.failure(this, target, "flush to rank " + target);
        if (error != null || failure != null)
        {
            return CompletableFuture.failedFuture(error != null ? error : failure);
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<Void> flushAll()
    {
        final CompletableFuture<?>[] all = new CompletableFuture<?>[size()];
        for (int t = 0; t < all.length; t++)
        {
            synchronized (this)
            {
                final boolean dirty = rmaError[t] != null;
                all[t] = dirty || fabric.lostReason(t) == null ? flush(t) : CompletableFuture.completedFuture(null);
            }
        }
        return CompletableFuture.allOf(all);
    }

    @Override
    public CompletableFuture<Long> fetchAndAdd(final WindowHandle target, final long offset, final long delta)
    {
        LongWords.check("fetchAndAdd", target, offset);
        final Window window = atomicTarget(target, "fetchAndAdd");
        return window == null ? atomicFailure(target, "fetchAndAdd") :
            CompletableFuture.completedFuture(LongWords.getAndAdd(window.memory(), (int)offset, delta));
    }

    @Override
    public CompletableFuture<Long> compareAndSwap(final WindowHandle target, final long offset, final long expected,
        final long update)
    {
        LongWords.check("compareAndSwap", target, offset);
        final Window window = atomicTarget(target, "compareAndSwap");
        return window == null ? atomicFailure(target, "compareAndSwap") : CompletableFuture.completedFuture(
            LongWords.compareAndExchange(window.memory(), (int)offset, expected, update));
    }

    /** The target's live window, or null; an atomic request of a zombie reaches the owner, which drops it. */
    private Window atomicTarget(final WindowHandle target, final String operation)
    {
        return fabric.message(this, target.owner(), operation) == null &&
            target.stale(operation, fabric.incarnation(target.owner())) == null ?
            fabric.windowsOf(target.owner()).get(target.id()) : null;
    }

    private CompletableFuture<Long> atomicFailure(final WindowHandle target, final String operation)
    {
        final String what = operation + " on window '" + target.name() + "' of rank " + target.owner();
        final TransportException failure = unreachable(target, operation, what);
        return CompletableFuture.failedFuture(failure != null ? failure :
            new TransportException(what + ": the window is not registered there (closed?)"));
    }

    @Override
    public String lostReason(final int r)
    {
        return fabric.lostReason(r);
    }

    @Override
    public void addPeerListener(final PeerListener listener)
    {
        events.add(listener);
    }

    @Override
    public void removePeerListener(final PeerListener listener)
    {
        events.remove(listener);
    }

    @Override
    public long fencedMessages()
    {
        return fence.fenced();
    }

    @Override
    public void close()
    {
        closed = true;
        fabric.close(this);
    }
}
