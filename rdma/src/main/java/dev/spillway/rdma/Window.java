package dev.spillway.rdma;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A region of this rank's memory that peers may put into and get from. Obtained from
 * {@link Transport#createWindow} or {@link Transport#registerWindow}; its {@link #handle()} is what peers need.
 *
 * <p>The local {@link #buffer()} is the same memory: the owner reads what peers put only after the putting rank's
 * flush completed and some message (or barrier) told the owner so. Close a window only when no peer uses it any more.
 */
public final class Window implements AutoCloseable
{
    private final WindowHandle handle;
    private final ByteBuffer buffer;
    private final Runnable release;
    private boolean closed;

    Window(final WindowHandle handle, final ByteBuffer buffer, final Runnable release)
    {
        this.handle = handle;
        this.buffer = buffer;
        this.release = release;
    }

    /** @return what peers need to reach this window; send {@link WindowHandle#toBytes()} to them. */
    public WindowHandle handle()
    {
        return handle;
    }

    /**
     * @return the window's memory as a direct buffer in native byte order (the order of the atomics' words),
     * position 0, limit and capacity the window size.
     */
    public ByteBuffer buffer()
    {
        return buffer.duplicate().order(ByteOrder.nativeOrder());
    }

    /** @return the window's name. */
    public String name()
    {
        return handle.name();
    }

    /** @return the window's size in bytes. */
    public long size()
    {
        return handle.size();
    }

    /** The raw buffer for the owning transport (atomics), not a duplicate. */
    ByteBuffer memory()
    {
        return buffer;
    }

    /** Deregisters the window; idempotent. */
    @Override
    public synchronized void close()
    {
        if (!closed)
        {
            closed = true;
            release.run();
        }
    }
}
