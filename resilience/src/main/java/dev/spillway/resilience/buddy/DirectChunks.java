package dev.spillway.resilience.buddy;

import dev.spillway.io.DirectIo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Chunks of a copy read and written with {@code O_DIRECT}, as the store writes its own blocks: the copy then costs
 * no page-cache copy and no page cache charged to the rank's memory cgroup (with buffered IO it ran at a third of
 * the speed beside out-of-core LU). A file is read and written through one aligned staging buffer, its last chunk
 * padded to {@link DirectIo#ALIGNMENT} on write and the file cut to its size before it is forced.
 */
final class DirectChunks
{
    private final ByteBuffer staging = DirectIo.alignedBuffer(BuddyWire.CHUNK_BYTES);
    private final String fallback;
    private Boolean direct;

    /** @param fallback what happens where {@code O_DIRECT} is refused, for the warning. */
    DirectChunks(final String fallback)
    {
        this.fallback = fallback;
    }

    /** Opens {@code file} with {@code options}, and with {@code O_DIRECT} where its directory takes it. */
    FileChannel open(final Path file, final OpenOption... options) throws IOException
    {
        if (direct == null)
        {
            direct = DirectIo.supported(file.getParent(), fallback);
        }
        if (!direct)
        {
            return FileChannel.open(file, options);
        }
        final OpenOption[] withDirect = Arrays.copyOf(options, options.length + 1);
        withDirect[options.length] = DirectIo.DIRECT;
        return FileChannel.open(file, withDirect);
    }

    /** @return whether channels this opens use {@code O_DIRECT}. */
    boolean direct()
    {
        return Boolean.TRUE.equals(direct);
    }

    /**
     * Reads {@code dst.remaining()} bytes (at most a chunk) of {@code channel} from {@code offset}, a multiple of
     * {@link DirectIo#ALIGNMENT}.
     *
     * @return false when the file ends first.
     */
    boolean read(final FileChannel channel, final long offset, final ByteBuffer dst) throws IOException
    {
        if (!direct())
        {
            while (dst.hasRemaining())
            {
                if (channel.read(dst, offset + dst.position()) < 0)
                {
                    return false;
                }
            }
            return true;
        }
        final int length = dst.remaining();
        staging.clear().limit((int)DirectIo.alignUp(length));
        while (staging.position() < length)
        {
            if (channel.read(staging, offset + staging.position()) < 0)
            {
                return false;
            }
        }
        dst.put(staging.flip().limit(length));
        return true;
    }

    /**
     * Writes {@code src}'s remaining bytes (at most a chunk) at {@code offset}, a multiple of
     * {@link DirectIo#ALIGNMENT}.
     */
    void write(final FileChannel channel, final long offset, final ByteBuffer src) throws IOException
    {
        final ByteBuffer out;
        if (direct())
        {
            final int length = src.remaining();
            out = staging.clear().put(src).position(0).limit((int)DirectIo.alignUp(length));
        }
        else
        {
            out = src;
        }
        final int from = out.position();
        while (out.hasRemaining())
        {
            channel.write(out, offset + out.position() - from);
        }
    }

    /** Cuts {@code channel} to {@code size} where the padding of its last chunk went beyond it. */
    static void cut(final FileChannel channel, final long size) throws IOException
    {
        if (channel.size() > size)
        {
            channel.truncate(size);
        }
    }
}
