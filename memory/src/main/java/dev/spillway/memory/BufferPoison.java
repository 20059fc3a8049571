package dev.spillway.memory;

import java.nio.ByteBuffer;
import java.util.IdentityHashMap;
import java.util.function.Consumer;

/** Fills released buffers with a NaN pattern and finds writes made to them after release (a debugging aid). */
final class BufferPoison
{
    /** A quiet NaN as a double, a negative number as an int or a long: stale reads stand out. */
    static final long PATTERN = 0xFFF8DEADFFF8DEADL;

    private final Consumer<String> onViolation;
    private final IdentityHashMap<TileBuffer, String> lastUsers = new IdentityHashMap<>();

    BufferPoison(final Consumer<String> onViolation)
    {
        this.onViolation = onViolation;
    }

    void fill(final TileBuffer buffer, final String lastUser)
    {
        final ByteBuffer b = buffer.buffer();
        for (int i = 0, n = b.capacity(); i < n; i += Long.BYTES)
        {
            b.putLong(i, PATTERN);
        }
        lastUsers.put(buffer, lastUser == null ? "an internal buffer" : "'" + lastUser + "'");
    }

    void check(final TileBuffer buffer)
    {
        final String lastUser = lastUsers.remove(buffer);
        final ByteBuffer b = buffer.buffer();
        for (int i = 0, n = b.capacity(); i < n; i += Long.BYTES)
        {
            if (b.getLong(i) != PATTERN)
            {
                onViolation.accept("the DRAM released by " + lastUser + " was written at byte " + i +
                    " after its release: a task kept a buffer past its run (TaskContext.buffer is valid only while " +
                    "the body runs)");
                return;
            }
        }
    }
}
