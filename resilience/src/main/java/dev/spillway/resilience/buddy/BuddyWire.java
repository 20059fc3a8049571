package dev.spillway.resilience.buddy;

import dev.spillway.rdma.Collectives;
import dev.spillway.rdma.Header;
import dev.spillway.rdma.Message;
import dev.spillway.rdma.Transport;
import dev.spillway.rdma.TransportTimeoutException;
import dev.spillway.ranks.DistributedSpillway;

import java.io.IOException;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * The messages that copy a generation's files between a rank and its buddy, in big-endian order. A file travels as
 * chunks: {@code CHUNK generation name fileSize offset crc32c bytes}; then {@code END generation names}, the manifest
 * last. {@code NONE reason} says a copy cannot be served. The buddy answers each {@code END} on
 * {@link #DURABLE_TAG}: {@code generation error}, the error empty when the copy is durable.
 *
 * <p>With {@link BuddyCheckpoints.Stream#PUTS}, each chunk and end towards the buddy is put one-sided into a slot of
 * its ring window ({@link #SLOTS} slots of {@link #SLOT_BYTES}), announced once flushed by {@code SLOT slot length}
 * on {@link #STREAM_TAG}, and the buddy gives the slot back with {@code slot} on {@link #CREDIT_TAG}
 * ({@link RingOutlet}). A copy fetched back comes as two-sided messages on {@link #FETCH_TAG}. A keeper that stops
 * for a reason other than its partner's loss or its own close says why on {@link #STOPPED_TAG} ({@link KeeperWatch}).
 */
final class BuddyWire
{
    /** A rank's generations, chunk by chunk, to its buddy: the chunks themselves, or notices of the ring's slots. */
    static final int STREAM_TAG = DistributedSpillway.FIRST_DATA_TAG - 13;
    /** The buddy's answer to each generation's end. */
    static final int DURABLE_TAG = DistributedSpillway.FIRST_DATA_TAG - 14;
    /** A buddy's copy streamed back to the rank restoring it. */
    static final int FETCH_TAG = DistributedSpillway.FIRST_DATA_TAG - 15;
    /** The hosts of the ranks and which ranks need their copy back, gathered as a job starts. */
    static final int GATHER_TAG = DistributedSpillway.FIRST_DATA_TAG - 16;
    /** Whether each rank restored the cut of a round of the restore, gathered after each round. */
    static final int VERIFY_TAG = DistributedSpillway.FIRST_DATA_TAG - 17;
    /** How a rank keeps its partner's copy, and its ring's handle, sent to the partner as a job starts. */
    static final int RING_TAG = DistributedSpillway.FIRST_DATA_TAG - 19;
    /** A buddy giving a slot of its ring back. */
    static final int CREDIT_TAG = DistributedSpillway.FIRST_DATA_TAG - 20;
    /** A keeper telling its partner why it stopped keeping the partner's copies, as text. */
    static final int STOPPED_TAG = DistributedSpillway.FIRST_DATA_TAG - 21;

    /** How long closing waits for the copy's and the keeper's threads to stop: a safety net, they stop at once. */
    static final long STOP_MS = 30_000;

    static final byte CHUNK = 1;
    static final byte END = 2;
    static final byte NONE = 3;
    static final byte SLOT = 4;
    /** Bytes of a file per chunk. */
    static final int CHUNK_BYTES = 1 << 20;
    /** Room for a chunk's fields before its bytes, and for the other messages' texts. */
    static final int FIELDS_BYTES = 64 * 1024;
    /** Slots of a ring window. */
    static final int SLOTS = 4;
    /** Bytes of a slot: a chunk and its fields, which take at most 64 bytes (a checked name is at most 31). */
    static final int SLOT_BYTES = CHUNK_BYTES + 4096;
    /** Bytes of a slot's notice, {@code SLOT slot length}, and of a credit, {@code slot}, with room to spare. */
    static final int NOTICE_BYTES = 16;
    /** Bytes of a notice after its kind: the slot and the length. */
    static final int NOTICE_FIELDS = 8;
    /** The only names a copy may hold: a peer cannot write elsewhere. */
    private static final Pattern NAME = Pattern.compile("gen-\\d{1,18}\\.manifest|blocks-\\d{1,18}\\.dat");

    private BuddyWire()
    {
    }

    /** @return a direct buffer for one message. */
    static ByteBuffer messageBuffer()
    {
        return ByteBuffer.allocateDirect(CHUNK_BYTES + FIELDS_BYTES);
    }

    /** @return a direct buffer for a slot's notice or credit. */
    static ByteBuffer noticeBuffer()
    {
        return ByteBuffer.allocateDirect(NOTICE_BYTES);
    }

    /** @throws IllegalArgumentException unless {@code name} is a generation file's. */
    static String checkName(final String name)
    {
        if (!NAME.matcher(name).matches())
        {
            throw new IllegalArgumentException("'" + name + "' is not a checkpoint file's name");
        }
        return name;
    }

    /** @return the bytes {@link #chunkFields} writes for a file named {@code name}. */
    static int chunkFieldsBytes(final String name)
    {
        return 1 + 8 + 2 + name.getBytes(StandardCharsets.UTF_8).length + 8 + 8 + 4;
    }

    /** Writes a chunk's fields into {@code buffer} (cleared) and leaves it positioned for the chunk's bytes. */
    static void chunkFields(final ByteBuffer buffer, final long generation, final String name, final long fileSize,
        final long offset, final int crc)
    {
        buffer.clear();
        buffer.put(CHUNK).putLong(generation);
        putString(buffer, name);
        buffer.putLong(fileSize).putLong(offset).putInt(crc);
    }

    /**
     * Writes {@code END generation names} into {@code buffer}, cleared.
     *
     * @return the buffer, flipped.
     * @throws IOException when the names do not fit, naming how many there are.
     */
    static ByteBuffer end(final ByteBuffer buffer, final long generation, final List<String> names) throws IOException
    {
        try
        {
            buffer.clear().put(END).putLong(generation).putInt(names.size());
            names.forEach(name -> putString(buffer, name));
            return buffer.flip();
        }
        catch (final BufferOverflowException e)
        {
            throw new IOException("generation " + generation + " names " + names.size() + " files, more than a " +
                "message of " + buffer.capacity() + " bytes holds", e);
        }
    }

    /** @return {@code text} in a direct buffer, ready to send, cut to {@link #FIELDS_BYTES}. */
    static ByteBuffer text(final String text)
    {
        return withText(0, text);
    }

    /** @return {@code NONE reason}, ready to send. */
    static ByteBuffer none(final String reason)
    {
        return withText(1, reason).put(0, NONE);
    }

    /** @return {@code generation error}, ready to send. */
    static ByteBuffer durable(final long generation, final String error)
    {
        return withText(8, error).putLong(0, generation);
    }

    /** @return a direct buffer of {@code head} bytes to fill, then {@code text} cut to {@link #FIELDS_BYTES}. */
    private static ByteBuffer withText(final int head, final String text)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        final int length = Math.min(bytes.length, FIELDS_BYTES);
        return ByteBuffer.allocateDirect(head + length).position(head).put(bytes, 0, length).position(0);
    }

    static void putString(final ByteBuffer buffer, final String text)
    {
        final byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        buffer.putShort((short) bytes.length).put(bytes);
    }

    static String getString(final ByteBuffer buffer)
    {
        final byte[] bytes = new byte[buffer.getShort() & 0xFFFF];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static String rest(final ByteBuffer buffer)
    {
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    static List<String> names(final ByteBuffer buffer)
    {
        final int count = buffer.getInt();
        final List<String> names = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            names.add(checkName(getString(buffer)));
        }
        return names;
    }

    static int crc(final ByteBuffer bytes)
    {
        final CRC32C crc = new CRC32C();
        crc.update(bytes.duplicate());
        return (int) crc.getValue();
    }

    /**
     * Receives the next message of {@code tag} from {@code source} into {@code buffer}, posting the receive again
     * after each timeout until {@code stopped}.
     *
     * @param watch cuts the wait short once the buddy's keeper stopped; {@link KeeperWatch#NONE} when none answers.
     * @return the message, its bytes flipped in {@code buffer}; null once stopped.
     * @throws RuntimeException the transport's failure: the peer lost, or this rank closed; or the keeper's stop.
     */
    static Message receive(final Transport transport, final int source, final int tag, final ByteBuffer buffer,
        final BooleanSupplier stopped, final KeeperWatch watch) throws InterruptedException
    {
        while (!stopped.getAsBoolean())
        {
            try
            {
                final Message m = watch.await(transport.receive(source, tag, buffer.clear()));
                buffer.limit(m.length()).position(0);
                return m;
            }
            catch (final TransportTimeoutException e)
            {
                // Posted again, unless stopped.
            }
        }
        return null;
    }

    /** Sends {@code bytes} and waits until the buffer may be reused. */
    static void send(final Transport transport, final int target, final int tag, final ByteBuffer bytes)
        throws InterruptedException
    {
        Collectives.await(transport.send(target, Header.of(tag), bytes));
    }
}
