package dev.spillway.io;

import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.bytes.RandomDataOutput;
import net.openhft.chronicle.hash.Data;

import java.nio.ByteBuffer;

/**
 * A block as a {@link ChronicleStore} map value: a header (version, CRC32C, length) then the payload, in native byte
 * order. This write-only view copies the payload straight from the caller's buffer into the map's memory; Chronicle
 * only needs {@link #size()} and {@link #writeTo} to insert or replace a value.
 */
final class BlockValue implements Data<ByteBuffer>
{
    static final int VERSION_OFFSET = 0;
    static final int CHECKSUM_OFFSET = 8;
    static final int LENGTH_OFFSET = 12;
    static final int HEADER_BYTES = 16;

    private ByteBuffer payload;
    private long version;
    private int checksum;
    private boolean placeholder;

    /** Points this value at {@code payload} (position to limit), which must stay unchanged while it is used. */
    void wrap(final ByteBuffer payload, final long version, final int checksum)
    {
        this.payload = payload;
        this.version = version;
        this.checksum = checksum;
        this.placeholder = false;
    }

    /** Makes {@link #writeTo} write nothing, for a throwaway entry that only takes up this value's room. */
    void placeholder(final boolean placeholder)
    {
        this.placeholder = placeholder;
    }

    /** Drops the reference to the caller's buffer. */
    void clear()
    {
        payload = null;
    }

    @Override
    public long size()
    {
        return HEADER_BYTES + payload.remaining();
    }

    @Override
    @SuppressWarnings("rawtypes")
    public void writeTo(final RandomDataOutput target, final long targetOffset)
    {
        if (placeholder)
        {
            return;
        }
        target.writeLong(targetOffset + VERSION_OFFSET, version);
        target.writeInt(targetOffset + CHECKSUM_OFFSET, checksum);
        target.writeInt(targetOffset + LENGTH_OFFSET, payload.remaining());
        target.write(targetOffset + HEADER_BYTES, payload, payload.position(), payload.remaining());
    }

    @Override
    public RandomDataInput bytes()
    {
        throw new UnsupportedOperationException("write-only block value");
    }

    @Override
    public long offset()
    {
        throw new UnsupportedOperationException("write-only block value");
    }

    @Override
    public ByteBuffer get()
    {
        throw new UnsupportedOperationException("write-only block value");
    }

    @Override
    public ByteBuffer getUsing(final ByteBuffer using)
    {
        throw new UnsupportedOperationException("write-only block value");
    }

    @Override
    public String toString()
    {
        return payload == null ? "block value (unset)" : "block value of " + size() + " bytes, version " + version;
    }
}
