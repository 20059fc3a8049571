package dev.spillway.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/** Checks and helpers shared by the store implementations. */
final class Blocks
{
    /** The average tag length the Chronicle maps are sized for. */
    static final int AVERAGE_TAG_BYTES = 32;

    /** ENOSPC as the JDK and libc say it. */
    private static final String NO_SPACE = "No space left on device";
    /** What Chronicle Map says when it finds too little free space for a new map file. */
    private static final String CHRONICLE_NO_SPACE = "Not enough space to fallocate";

    private Blocks()
    {
    }

    /** @return {@code value} rounded up to a multiple of {@code alignment} (a power of two). */
    static long alignUp(final long value, final int alignment)
    {
        return (value + alignment - 1) & -alignment;
    }

    /** @return {@code value} rounded down to a multiple of {@code alignment} (a power of two). */
    static long alignDown(final long value, final int alignment)
    {
        return value & -alignment;
    }

    /**
     * Checks the {@link Store} buffer contract: direct, position aligned to {@code alignment}, and room for
     * {@code length} rounded up to {@code alignment} from the position.
     *
     * @throws IllegalArgumentException naming the tag and what is wrong.
     */
    static void checkBuffer(final ByteBuffer buffer, final int alignment, final int length, final String tag)
    {
        if (!buffer.isDirect())
        {
            throw new IllegalArgumentException("buffer for block '" + tag + "' must be a direct buffer");
        }
        final int misalignment = buffer.alignmentOffset(buffer.position(), alignment);
        if (misalignment != 0)
        {
            throw new IllegalArgumentException("buffer for block '" + tag + "' is not aligned to " + alignment +
                " bytes: its position's address is " + misalignment + " bytes past a boundary");
        }
        final long needed = alignUp(length, alignment);
        if (buffer.capacity() - buffer.position() < needed)
        {
            throw new IllegalArgumentException("buffer for block '" + tag + "' has " +
                (buffer.capacity() - buffer.position()) + " bytes from its position to its capacity; needs " + needed +
                " (" + length + " rounded up to " + alignment + ")");
        }
    }

    /** @return the CRC32C of {@code length} bytes of {@code buffer} from {@code position}; the buffer is untouched. */
    static int crc32c(final CRC32C crc, final ByteBuffer buffer, final int position, final int length)
    {
        crc.reset();
        crc.update(buffer.duplicate().limit(position + length).position(position));
        return (int)crc.getValue();
    }

    /** @return whether {@code e} or one of its causes says the disk is full. */
    static boolean isNoSpace(final Throwable e)
    {
        for (Throwable t = e; t != null; t = t.getCause())
        {
            if (t.getMessage() != null && (t.getMessage().contains(NO_SPACE) || t.getMessage().contains(CHRONICLE_NO_SPACE)))
            {
                return true;
            }
        }
        return false;
    }

    /** @return the exception for a write of {@code tag} that the disk itself could not take. */
    static StoreFullException diskFull(final String tag, final long bytes, final IOException cause)
    {
        return new StoreFullException("disk full: cannot write block '" + tag + "' (" + bytes + " bytes): " +
            cause.getMessage(), cause);
    }
}
