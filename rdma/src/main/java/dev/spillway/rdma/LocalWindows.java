package dev.spillway.rdma;

import org.agrona.collections.Int2ObjectHashMap;
import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpMemMapParams;
import org.openucx.jucx.ucp.UcpMemory;

import java.nio.ByteBuffer;
import java.util.function.IntConsumer;

/**
 * The windows this rank exposes, on the agent thread: allocates or registers their memory with UCX, packs the
 * remote key peers need into the {@link WindowHandle}, and finds a window by id for the atomics service.
 */
final class LocalWindows
{
    private final int rank;
    private final int incarnation;
    private final UcpContext context;
    private final IntConsumer release;
    private final Int2ObjectHashMap<Window> windows = new Int2ObjectHashMap<>();
    private final Int2ObjectHashMap<UcpMemory> memories = new Int2ObjectHashMap<>();
    private int nextId;

    /** @param release what closing a window runs, with its id, on the closing thread. */
    LocalWindows(final TransportConfig config, final UcpContext context, final IntConsumer release)
    {
        this.rank = config.rank();
        this.incarnation = config.incarnation();
        this.context = context;
        this.release = release;
    }

    /** @return a zeroed window in memory UCX allocates (truly one-sided over shared memory). */
    Window create(final String name, final int length)
    {
        final UcpMemory memory = context.memoryMap(new UcpMemMapParams().allocate().setLength(length));
        final ByteBuffer view = UcxUtils.getByteBufferView(memory.getAddress(), length);
        for (int i = 0; i < length; i += Long.BYTES)
        {
            view.putLong(i, 0L);
        }
        return expose(name, memory, view);
    }

    /** @return a window over the caller's direct buffer. */
    Window register(final String name, final ByteBuffer slice)
    {
        return expose(name, context.registerMemory(slice), slice);
    }

    private Window expose(final String name, final UcpMemory memory, final ByteBuffer view)
    {
        final int id = ++nextId;
        final ByteBuffer key = memory.getRemoteKeyBuffer();
        final byte[] keyBytes = new byte[key.remaining()];
        key.get(keyBytes);
        final WindowHandle handle = new WindowHandle(rank, incarnation, id, name, view.capacity(), memory.getAddress(),
            keyBytes);
        final Window window = new Window(handle, view, () -> release.accept(id));
        windows.put(id, window);
        memories.put(id, memory);
        return window;
    }

    /** @return the window with {@code id}, or null when there is none (closed?). */
    Window get(final int id)
    {
        return windows.get(id);
    }

    /** Forgets window {@code id} and deregisters its memory; nothing when it is gone already. */
    void deregister(final int id)
    {
        windows.remove(id);
        final UcpMemory memory = memories.remove(id);
        if (memory != null)
        {
            memory.deregister();
        }
    }

    /** Deregisters every window's memory. */
    void close()
    {
        memories.values().forEach(UcpMemory::deregister);
        memories.clear();
        windows.clear();
    }
}
