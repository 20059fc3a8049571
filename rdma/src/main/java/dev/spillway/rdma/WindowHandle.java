package dev.spillway.rdma;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * What a peer needs to put into, get from or run atomics on a window: owner and its incarnation, id, size, base
 * address and the packed remote key. Immutable; travels as bytes ({@link #toBytes()}, {@link #fromBytes(byte[])}),
 * for example through {@link Collectives#allGather}. A handle is valid only while its owner's incarnation is
 * current: once a new incarnation of the owner rejoined, operations through it fail (exchange handles again).
 */
public final class WindowHandle
{
    private static final int MAGIC = 0x5350574F; // "SPWO"
    private static final int MAX_NAME_BYTES = 1024;
    private static final int MAX_KEY_BYTES = 64 * 1024;

    private final int owner;
    private final int incarnation;
    private final int id;
    private final String name;
    private final long size;
    private final long address;
    private final byte[] remoteKey;

    WindowHandle(final int owner, final int incarnation, final int id, final String name, final long size,
        final long address, final byte[] remoteKey)
    {
        this.owner = owner;
        this.incarnation = incarnation;
        this.id = id;
        this.name = name;
        this.size = size;
        this.address = address;
        this.remoteKey = remoteKey.clone();
    }

    /** @return the rank that owns the memory. */
    public int owner()
    {
        return owner;
    }

    /** @return the owner's incarnation that exposed the window. */
    public int incarnation()
    {
        return incarnation;
    }

    /** @return the window's id, unique within its owner. */
    public int id()
    {
        return id;
    }

    /** @return the window's name, for errors and logs. */
    public String name()
    {
        return name;
    }

    /** @return the window's size in bytes. */
    public long size()
    {
        return size;
    }

    /** @return the base address at the owner (0 for transports that do not use addresses). */
    long address()
    {
        return address;
    }

    /** @return a copy of the packed remote key (empty for transports without one). */
    byte[] remoteKey()
    {
        return remoteKey.clone();
    }

    /**
     * Refuses an access of {@code length} bytes at {@code offset}, naming window, offset, length and size.
     *
     * @param operation what is checked, for the message.
     * @param offset first byte.
     * @param length bytes.
     */
    void checkBounds(final String operation, final long offset, final long length)
    {
        if (offset < 0 || length < 0 || offset > size - length)
        {
            throw new WindowBoundsException(operation, this, offset, length);
        }
    }

    /**
     * @param operation what uses the handle, for the message.
     * @param current the owner's current incarnation.
     * @return why the handle no longer reaches its window (the owner rejoined as {@code current}), or null.
     */
    TransportException stale(final String operation, final int current)
    {
        if (current == incarnation)
        {
            return null;
        }
        return new TransportException(operation + " to window '" + name + "' of rank " + owner + ": the handle is of " +
            "incarnation " + incarnation + ", rank " + owner + " is now incarnation " + current +
            " (exchange the handles again)");
    }

    /** @return this handle as bytes, little-endian. */
    public byte[] toBytes()
    {
        final byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        final ByteBuffer b = ByteBuffer.allocate(4 + 4 + 4 + 4 + 8 + 8 + 4 + nameBytes.length + 4 + remoteKey.length)
            .order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).putInt(owner).putInt(incarnation).putInt(id).putLong(size).putLong(address);
        b.putInt(nameBytes.length).put(nameBytes);
        b.putInt(remoteKey.length).put(remoteKey);
        return b.array();
    }

    /**
     * @param bytes what {@link #toBytes()} produced.
     * @return the handle.
     * @throws IllegalArgumentException when the bytes are not a handle.
     */
    public static WindowHandle fromBytes(final byte[] bytes)
    {
        try
        {
            final ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            if (b.getInt() != MAGIC)
            {
                throw new IllegalArgumentException("not a window handle (bad magic), " + bytes.length + " bytes");
            }
            final int owner = b.getInt();
            final int incarnation = b.getInt();
            final int id = b.getInt();
            final long size = b.getLong();
            final long address = b.getLong();
            final byte[] name = new byte[bounded(b.getInt(), MAX_NAME_BYTES, "name")];
            b.get(name);
            final byte[] key = new byte[bounded(b.getInt(), MAX_KEY_BYTES, "remote key")];
            b.get(key);
            return new WindowHandle(owner, incarnation, id, new String(name, StandardCharsets.UTF_8), size, address,
                key);
        }
        catch (final java.nio.BufferUnderflowException ex)
        {
            throw new IllegalArgumentException("truncated window handle, " + bytes.length + " bytes", ex);
        }
    }

    private static int bounded(final int length, final int max, final String what)
    {
        if (length < 0 || length > max)
        {
            throw new IllegalArgumentException("window handle " + what + " length " + length + " outside 0.." + max);
        }
        return length;
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof WindowHandle h && h.owner == owner && h.incarnation == incarnation && h.id == id &&
            h.size == size && h.address == address && h.name.equals(name) && Arrays.equals(h.remoteKey, remoteKey);
    }

    @Override
    public int hashCode()
    {
        return 31 * (31 * owner + id) + Long.hashCode(address);
    }

    @Override
    public String toString()
    {
        return "WindowHandle{'" + name + "' id " + id + " of rank " + owner + " incarnation " + incarnation + ", " +
            size + " bytes}";
    }
}
