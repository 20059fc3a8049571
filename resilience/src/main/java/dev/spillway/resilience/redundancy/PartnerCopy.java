package dev.spillway.resilience.redundancy;

import dev.spillway.io.DurableFiles;
import dev.spillway.resilience.store.GenerationFiles;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * One generation of a rank's checkpoint, sent over the transport from a replica that holds it to a partner in the
 * same sphere that lacks it (a relaunched replica taken over before that cut), so replicas need not share a file
 * system. The sender sends the files' names and sizes, then each file in chunks of at most {@link #CHUNK} bytes; the
 * receiver writes each file under a temporary name, forces it and renames it, then forces the directory.
 */
final class PartnerCopy
{
    /** The largest message of a copy: one direct buffer of this size on each side. */
    static final int CHUNK = 4 << 20;

    private PartnerCopy()
    {
    }

    /**
     * Sends {@code from}'s generation of the global cut {@code cut} to {@code slot}.
     *
     * @param chunkBytes the largest message, the same on both sides ({@link #CHUNK}; tests take smaller ones).
     * @return the bytes of its files.
     */
    static long send(final ReplicatedTransport transport, final int slot, final Path from, final long cut,
        final int chunkBytes) throws IOException
    {
        final Map<String, Long> files = new LinkedHashMap<>();
        for (final String name : GenerationFiles.names(from, GenerationFiles.ofGlobalCut(from, cut)))
        {
            files.put(name, Files.size(from.resolve(name)));
        }
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            out.writeInt(files.size());
            for (final Map.Entry<String, Long> e : files.entrySet())
            {
                out.writeUTF(e.getKey());
                out.writeLong(e.getValue());
            }
        }
        final byte[] list = bytes.toByteArray();
        transport.sendToPartner(slot, ByteBuffer.allocateDirect(Integer.BYTES).putInt(0, list.length));
        transport.sendToPartner(slot, ByteBuffer.allocateDirect(list.length).put(list).flip());
        final ByteBuffer chunk = ByteBuffer.allocateDirect(chunkBytes);
        long total = 0;
        for (final Map.Entry<String, Long> e : files.entrySet())
        {
            try (FileChannel in = FileChannel.open(from.resolve(e.getKey()), StandardOpenOption.READ))
            {
                for (long at = 0; at < e.getValue(); at += chunk.limit())
                {
                    chunk.clear().limit((int)Math.min(chunkBytes, e.getValue() - at));
                    while (chunk.hasRemaining())
                    {
                        if (in.read(chunk, at + chunk.position()) < 0)
                        {
                            throw new IOException(from.resolve(e.getKey()) + " ended at " + (at + chunk.position()) +
                                " bytes while it was sent to slot " + slot + ", which expected " + e.getValue());
                        }
                    }
                    transport.sendToPartner(slot, chunk.flip());
                }
            }
            total += e.getValue();
        }
        return total;
    }

    /**
     * Replaces {@code to}'s generations by the generation {@code slot} sends with {@link #send}.
     *
     * @param chunkBytes the largest message, as the sender's.
     * @return the bytes received.
     */
    static long receive(final ReplicatedTransport transport, final int slot, final Path to, final int chunkBytes)
        throws IOException
    {
        final ByteBuffer length = ByteBuffer.allocateDirect(Integer.BYTES);
        transport.receiveFromPartner(slot, length);
        final ByteBuffer list = ByteBuffer.allocateDirect(length.getInt(0));
        transport.receiveFromPartner(slot, list);
        final byte[] bytes = new byte[list.capacity()];
        list.get(0, bytes);
        final List<String> names = new ArrayList<>();
        final List<Long> sizes = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes)))
        {
            for (int n = in.readInt(); n > 0; n--)
            {
                names.add(in.readUTF());
                sizes.add(in.readLong());
            }
        }
        clear(to);
        final ByteBuffer chunk = ByteBuffer.allocateDirect(chunkBytes);
        long total = 0;
        for (int i = 0; i < names.size(); i++)
        {
            final Path tmp = to.resolve(names.get(i) + ".copy");
            try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING))
            {
                for (long at = 0; at < sizes.get(i); at += chunk.limit())
                {
                    chunk.clear().limit((int)Math.min(chunkBytes, sizes.get(i) - at));
                    final int got = transport.receiveFromPartner(slot, chunk);
                    if (got != chunk.limit())
                    {
                        throw new IOException("slot " + slot + " sent " + got + " bytes of " + names.get(i) +
                            " at offset " + at + " where " + chunk.limit() + " were due");
                    }
                    while (chunk.hasRemaining())
                    {
                        out.write(chunk, at + chunk.position());
                    }
                }
                out.force(true);
            }
            Files.move(tmp, to.resolve(names.get(i)), StandardCopyOption.ATOMIC_MOVE);
            total += sizes.get(i);
        }
        DurableFiles.syncDirectory(to);
        return total;
    }

    /** Deletes every file of {@code dir}, creating it when missing: nothing in it is newer than the cut copied. */
    private static void clear(final Path dir) throws IOException
    {
        if (Files.isDirectory(dir))
        {
            try (Stream<Path> old = Files.list(dir))
            {
                for (final Path p : old.toList())
                {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(dir);
    }
}
