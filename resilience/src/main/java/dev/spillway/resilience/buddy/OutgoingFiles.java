package dev.spillway.resilience.buddy;

import dev.spillway.io.CrashPoints;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * Reads files as {@link BuddyWire} chunks, then a generation's end, and hands them to an outlet: two-sided messages
 * or puts into a buddy's ring. Files are read with {@code O_DIRECT} where the directory takes it
 * ({@link DirectChunks}). One thread uses it.
 */
final class OutgoingFiles
{
    private final ChunkOutlet outlet;
    private final String crashPoint;
    private final DirectChunks files = new DirectChunks("buddy copies are read through the page cache");
    private long bytes;

    /** @param crashPoint hit before each chunk goes out, or null. */
    OutgoingFiles(final ChunkOutlet outlet, final String crashPoint)
    {
        this.outlet = outlet;
        this.crashPoint = crashPoint;
    }

    /** @return the bytes of files sent so far. */
    long bytes()
    {
        return bytes;
    }

    /** Sends every byte of {@code file} (an empty file as one empty chunk) as chunks of generation {@code gen}. */
    void send(final long gen, final Path file) throws IOException, InterruptedException
    {
        final String name = BuddyWire.checkName(file.getFileName().toString());
        try (FileChannel channel = files.open(file, StandardOpenOption.READ))
        {
            final long size = channel.size();
            long offset = 0;
            do
            {
                if (crashPoint != null)
                {
                    CrashPoints.hit(crashPoint);
                }
                final ByteBuffer buffer = outlet.free();
                final int length = (int) Math.min(BuddyWire.CHUNK_BYTES, size - offset);
                final int fields = BuddyWire.chunkFieldsBytes(name);
                // The file's bytes go after the fields, which are written once their CRC is known.
                final ByteBuffer data = buffer.duplicate().clear().position(fields).limit(fields + length).slice();
                if (!files.read(channel, offset, data))
                {
                    throw new EOFException(file + " ended before byte " + (offset + length) + " of " + size);
                }
                BuddyWire.chunkFields(buffer, gen, name, size, offset, BuddyWire.crc(data.flip()));
                outlet.send(buffer.position(0).limit(fields + length));
                offset += length;
                bytes += length;
            }
            while (offset < size);
        }
    }

    /** Sends the end of generation {@code gen}, which needs the files {@code names}, and waits until all is out. */
    void end(final long gen, final List<String> names) throws IOException, InterruptedException
    {
        outlet.send(BuddyWire.end(outlet.free(), gen, names));
        outlet.drain();
    }

    /** Waits until every chunk sent is out. */
    void drain() throws InterruptedException
    {
        outlet.drain();
    }
}
