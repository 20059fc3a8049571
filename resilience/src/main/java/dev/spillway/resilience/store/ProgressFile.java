package dev.spillway.resilience.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static java.lang.System.Logger.Level.WARNING;

/**
 * The 8-byte count of completed tasks, overwritten in place without fsync: it survives a process crash (the page
 * cache does), not necessarily a power loss. Only the IO thread writes it.
 */
final class ProgressFile implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger(ProgressFile.class.getName());

    private final Path file;
    private final long previous;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(Long.BYTES);
    private FileChannel channel;
    private boolean failed;

    /** Reads what the file holds now: the previous run's count. */
    ProgressFile(final Path file) throws IOException
    {
        this.file = file;
        this.previous = read(file);
    }

    /** @return the count the file held when opened, or -1 if there was none. */
    long previous()
    {
        return previous;
    }

    /** Overwrites the count; after a write error it warns once and stops writing. */
    void write(final long completed)
    {
        if (failed)
        {
            return;
        }
        try
        {
            if (channel == null)
            {
                channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            }
            buffer.clear();
            buffer.putLong(0, completed);
            while (buffer.hasRemaining())
            {
                channel.write(buffer, buffer.position());
            }
        }
        catch (final IOException e)
        {
            failed = true;
            LOG.log(WARNING, "spillway: could not record progress in " + file + " (" + e +
                "); progress is no longer recorded");
        }
    }

    @Override
    public void close() throws IOException
    {
        if (channel != null)
        {
            channel.close();
        }
    }

    private static long read(final Path file) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            final ByteBuffer bytes = ByteBuffer.allocate(Long.BYTES);
            while (bytes.hasRemaining() && channel.read(bytes, bytes.position()) > 0)
            {
                // Reads until full or end of file.
            }
            return bytes.hasRemaining() ? -1 : bytes.getLong(0);
        }
        catch (final NoSuchFileException e)
        {
            return -1;
        }
    }
}
