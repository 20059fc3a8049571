package dev.spillway.resilience.buddy;

import dev.spillway.io.CrashPoints;
import dev.spillway.rdma.Collectives;
import dev.spillway.rdma.Header;
import dev.spillway.rdma.Transport;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

/**
 * Sends files as {@link BuddyWire} chunks to one rank, with up to {@link #IN_FLIGHT} chunks on the wire at once.
 * Files are read with {@code O_DIRECT} where the directory takes it ({@link DirectChunks}). One thread uses it.
 */
final class OutgoingFiles
{
    static final int IN_FLIGHT = 4;

    private final Transport transport;
    private final int target;
    private final int tag;
    private final String crashPoint;
    private final ByteBuffer[] buffers = new ByteBuffer[IN_FLIGHT];
    private final ArrayDeque<CompletableFuture<Void>> sends = new ArrayDeque<>();
    private final DirectChunks files = new DirectChunks("buddy copies are read through the page cache");
    private int next;
    private long bytes;

    /** @param crashPoint hit before each chunk goes out, or null. */
    OutgoingFiles(final Transport transport, final int target, final int tag, final String crashPoint)
    {
        this.transport = transport;
        this.target = target;
        this.tag = tag;
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
                final ByteBuffer buffer = freeBuffer();
                final int length = (int) Math.min(BuddyWire.CHUNK_BYTES, size - offset);
                final int fields = BuddyWire.chunkFieldsBytes(name);
                // The file's bytes go after the fields, which are written once their CRC is known.
                final ByteBuffer data = buffer.duplicate().clear().position(fields).limit(fields + length).slice();
                if (!files.read(channel, offset, data))
                {
                    throw new EOFException(file + " ended before byte " + (offset + length) + " of " + size);
                }
                BuddyWire.chunkFields(buffer, gen, name, size, offset, BuddyWire.crc(data.flip()));
                buffer.position(0).limit(fields + length);
                sends.add(transport.send(target, Header.of(tag), buffer));
                offset += length;
                bytes += length;
            }
            while (offset < size);
        }
    }

    /** Waits until every chunk sent may be reused. */
    void drain() throws InterruptedException
    {
        while (!sends.isEmpty())
        {
            Collectives.await(sends.poll());
        }
    }

    private ByteBuffer freeBuffer() throws InterruptedException
    {
        if (sends.size() == IN_FLIGHT)
        {
            Collectives.await(sends.poll());
        }
        final int i = next++ % IN_FLIGHT;
        if (buffers[i] == null)
        {
            buffers[i] = BuddyWire.messageBuffer();
        }
        return buffers[i];
    }
}
