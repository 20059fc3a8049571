package dev.spillway.resilience.buddy;

import dev.spillway.io.DurableFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A generation's files arriving chunk by chunk into a directory: each is written as {@code NAME.tmp} and renamed to
 * its name only once complete, forced and its chunks' CRC32C checked, the manifest last. Until then the directory's
 * committed generations are untouched; a store's next collection deletes temporaries a crash left. Files are
 * written with {@code O_DIRECT} where the directory takes it ({@link DirectChunks}).
 */
final class IncomingFiles
{
    private final Path dir;
    private final Map<String, Partial> partials = new HashMap<>();
    private final DirectChunks files = new DirectChunks("buddy copies are written through the page cache");
    private long generation = -1;
    private long bytes;

    IncomingFiles(final Path dir)
    {
        this.dir = dir;
    }

    /** @return bytes written since the last {@link #finish}. */
    long bytes()
    {
        return bytes;
    }

    /**
     * Writes the chunk in {@code message} (positioned after its kind byte).
     *
     * @throws IOException when it cannot be written, its checksum is wrong, or it does not follow the file's bytes
     *                     received so far in whole chunks (the generation then fails).
     */
    void chunk(final ByteBuffer message) throws IOException
    {
        final long gen = message.getLong();
        final String name = BuddyWire.checkName(BuddyWire.getString(message));
        final long size = message.getLong();
        final long offset = message.getLong();
        final int crc = message.getInt();
        if (gen != generation)
        {
            discard();
            generation = gen;
        }
        if (BuddyWire.crc(message) != crc)
        {
            throw new IOException("chunk at byte " + offset + " of " + name + " failed its CRC32C check");
        }
        Partial partial = partials.get(name);
        final long expected = partial == null ? 0 : partial.received;
        if (offset != expected || offset % BuddyWire.CHUNK_BYTES != 0 || offset + message.remaining() > size ||
            partial != null && partial.size != size)
        {
            throw new IOException("chunk of " + message.remaining() + " bytes at byte " + offset + " of " + name +
                " (" + size + " bytes) does not follow the " + expected + " bytes received" +
                (partial == null ? "" : " of " + partial.size) + " in whole chunks of " + BuddyWire.CHUNK_BYTES +
                " bytes");
        }
        if (partial == null)
        {
            Files.createDirectories(dir);
            partial = new Partial(files.open(part(name), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING), size);
            partials.put(name, partial);
        }
        final int length = message.remaining();
        files.write(partial.channel, offset, message);
        partial.received += length;
        bytes += length;
    }

    /**
     * Makes generation {@code gen} durable: every file that arrived complete is forced and renamed, the manifest
     * last; every other name must be in the directory already (sent for an earlier generation).
     *
     * @param names the generation's files, the manifest last.
     * @throws IOException naming a file that is incomplete or missing; nothing of the generation is then committed.
     */
    void finish(final long gen, final List<String> names) throws IOException
    {
        try
        {
            if (!partials.isEmpty() && gen != generation)
            {
                throw new IOException("the end of generation " + gen + " came after chunks of generation " +
                    generation);
            }
            for (final Map.Entry<String, Partial> e : partials.entrySet())
            {
                final Partial partial = e.getValue();
                if (!names.contains(e.getKey()))
                {
                    throw new IOException(e.getKey() + " arrived but is not a file of generation " + gen);
                }
                if (partial.received != partial.size)
                {
                    throw new IOException(e.getKey() + " is incomplete: " + partial.received + " of " + partial.size +
                        " bytes arrived");
                }
            }
            for (final String name : names)
            {
                if (!partials.containsKey(name) && !Files.exists(dir.resolve(name)))
                {
                    throw new IOException("generation " + gen + " needs " + name + ", which never arrived");
                }
            }
            for (final String name : names)
            {
                final Partial partial = partials.remove(name);
                if (partial != null)
                {
                    DirectChunks.cut(partial.channel, partial.size);
                    partial.channel.force(true);
                    partial.channel.close();
                    Files.move(part(name), dir.resolve(name), StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
                }
            }
            DurableFiles.syncDirectory(dir);
        }
        finally
        {
            discard();
            generation = -1;
            bytes = 0;
        }
    }

    /** Drops every file still arriving. */
    void discard() throws IOException
    {
        for (final Map.Entry<String, Partial> e : partials.entrySet())
        {
            e.getValue().channel.close();
            Files.deleteIfExists(part(e.getKey()));
        }
        partials.clear();
    }

    private Path part(final String name)
    {
        return dir.resolve(name + ".tmp");
    }

    private static final class Partial
    {
        final FileChannel channel;
        final long size;
        long received;

        Partial(final FileChannel channel, final long size)
        {
            this.channel = channel;
            this.size = size;
        }
    }
}
