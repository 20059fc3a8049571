package dev.spillway.resilience.store;

import dev.spillway.io.DirectIo;
import dev.spillway.io.StoreFullException;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The {@code blocks-N.dat} of one generation, written sequentially: each block at an offset aligned to
 * {@link DirectIo#ALIGNMENT}. With direct IO, {@code alignUp(length)} bytes are written from the caller's buffer when
 * it is aligned (the engine's are), else through an aligned staging copy.
 */
final class BlockFile implements Closeable
{
    private static final String NO_SPACE = "No space left on device";

    private final Path path;
    private final long generation;
    private final FileChannel channel;
    private final boolean direct;
    private long position;
    private ByteBuffer staging;

    private BlockFile(final Path path, final long generation, final FileChannel channel, final boolean direct)
    {
        this.path = path;
        this.generation = generation;
        this.channel = channel;
        this.direct = direct;
    }

    /** Creates (or truncates) {@code path}, opened with {@code O_DIRECT} when {@code direct}. */
    static BlockFile create(final Path path, final long generation, final boolean direct) throws IOException
    {
        final FileChannel channel = direct ?
            FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE, DirectIo.DIRECT) :
            FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
        return new BlockFile(path, generation, channel, direct);
    }

    /** Opens {@code path}, created if missing, to append blocks after those it holds; without {@code O_DIRECT}. */
    static BlockFile extend(final Path path, final long generation) throws IOException
    {
        final FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        final BlockFile file = new BlockFile(path, generation, channel, false);
        file.position = DirectIo.alignUp(channel.size());
        return file;
    }

    /**
     * Appends {@code src}'s bytes from position to limit; {@code src} is left unchanged.
     *
     * @return the block's offset in the file.
     * @throws StoreFullException if the disk is full.
     */
    long append(final String tag, final ByteBuffer src) throws IOException
    {
        final long offset = position;
        final int length = src.remaining();
        final int aligned = (int)DirectIo.alignUp(length);
        final ByteBuffer out = direct ? directView(src, length, aligned) : src.duplicate();
        final int start = out.position();
        try
        {
            while (out.hasRemaining())
            {
                channel.write(out, offset + out.position() - start);
            }
        }
        catch (final IOException e)
        {
            final String what = "checkpoint generation " + generation + ": writing block '" + tag + "' (" + length +
                " bytes) at offset " + offset + " of " + path + " failed";
            if (e.getMessage() != null && e.getMessage().contains(NO_SPACE))
            {
                throw new StoreFullException("disk full: " + what + " (" + usableSpace() + " bytes usable)", e);
            }
            throw new IOException(what + ": " + e.getMessage(), e);
        }
        position = offset + aligned;
        return offset;
    }

    /** Makes every block durable. */
    void force() throws IOException
    {
        channel.force(true);
    }

    @Override
    public void close() throws IOException
    {
        channel.close();
    }

    Path path()
    {
        return path;
    }

    private ByteBuffer directView(final ByteBuffer src, final int length, final int aligned)
    {
        final int from = src.position();
        if (src.isDirect() && src.alignmentOffset(from, DirectIo.ALIGNMENT) == 0 && src.capacity() - from >= aligned)
        {
            return src.duplicate().limit(from + aligned).position(from);
        }
        if (staging == null || staging.capacity() < aligned)
        {
            staging = DirectIo.alignedBuffer(aligned);
        }
        staging.clear();
        staging.put(src.duplicate());
        while (staging.position() < aligned)
        {
            staging.put((byte)0);
        }
        return staging.flip().limit(aligned);
    }

    private String usableSpace()
    {
        try
        {
            return Long.toString(Files.getFileStore(path).getUsableSpace());
        }
        catch (final IOException e)
        {
            return "unknown";
        }
    }
}
