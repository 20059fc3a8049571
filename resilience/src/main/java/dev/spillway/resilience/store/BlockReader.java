package dev.spillway.resilience.store;

import dev.spillway.io.BlockCorruptedException;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads blocks back from a checkpoint directory and checks them against their manifest entries: the file exists,
 * holds the block's whole extent, and (unless checksums are off) the bytes match both halves of the checksum.
 * Every failure is a {@link BlockCorruptedException} naming the generation, tag, file and offset.
 */
final class BlockReader implements Closeable
{
    private static final int CHUNK = 1 << 20;

    private final Path dir;
    private final boolean checksums;
    private final Map<Long, FileChannel> channels = new HashMap<>();
    private final BlockChecksum sum = new BlockChecksum();
    private ByteBuffer chunk;
    private long readNanos;
    private long verifyNanos;
    private long bytesRead;

    /** @param checksums whether to compute and compare checksums (off only for the test-only negative control). */
    BlockReader(final Path dir, final boolean checksums)
    {
        this.dir = dir;
        this.checksums = checksums;
    }

    /** Checks {@code entry} of {@code generation}, reading it in chunks; times reads and checksums apart. */
    void verify(final long generation, final ManifestEntry entry) throws IOException
    {
        FileChannel channel = channels.get(entry.fileGeneration());
        if (channel == null)
        {
            channel = open(generation, entry);
            channels.put(entry.fileGeneration(), channel);
        }
        checkExtent(generation, entry, channel.size());
        if (!checksums)
        {
            return;
        }
        if (chunk == null)
        {
            chunk = ByteBuffer.allocateDirect(CHUNK);
        }
        sum.reset();
        long at = entry.offset();
        long left = entry.length();
        while (left > 0)
        {
            chunk.clear().limit((int)Math.min(CHUNK, left));
            final long start = System.nanoTime();
            readFully(channel, chunk, at, generation, entry);
            final long read = System.nanoTime();
            sum.update(chunk.flip());
            verifyNanos += System.nanoTime() - read;
            readNanos += read - start;
            at += chunk.limit();
            left -= chunk.limit();
        }
        bytesRead += entry.length();
        compare(generation, entry, sum.value());
    }

    /**
     * Reads {@code entry} of {@code generation} into {@code dst} from its position, then checks it (unless checksums
     * are off); {@code dst}'s position is left unchanged.
     */
    void read(final long generation, final ManifestEntry entry, final ByteBuffer dst) throws IOException
    {
        if (dst.remaining() < entry.length())
        {
            throw new IllegalArgumentException("block '" + entry.tag() + "' of checkpoint generation " + generation +
                " has " + entry.length() + " bytes; the buffer has room for " + dst.remaining());
        }
        try (FileChannel channel = open(generation, entry))
        {
            checkExtent(generation, entry, channel.size());
            final ByteBuffer into = dst.duplicate();
            into.limit(into.position() + entry.length());
            readFully(channel, into, entry.offset(), generation, entry);
            if (checksums)
            {
                compare(generation, entry, sum.of(into.position(dst.position())));
            }
        }
    }

    long readNanos()
    {
        return readNanos;
    }

    long verifyNanos()
    {
        return verifyNanos;
    }

    long bytesRead()
    {
        return bytesRead;
    }

    @Override
    public void close() throws IOException
    {
        for (final FileChannel channel : channels.values())
        {
            channel.close();
        }
        channels.clear();
    }

    private FileChannel open(final long generation, final ManifestEntry entry) throws IOException
    {
        final Path file = Generations.blocks(dir, entry.fileGeneration());
        try
        {
            return FileChannel.open(file, StandardOpenOption.READ);
        }
        catch (final NoSuchFileException e)
        {
            throw new BlockCorruptedException(where(generation, entry) + ": " + file.getFileName() + " is missing", e);
        }
    }

    private void checkExtent(final long generation, final ManifestEntry entry, final long size)
        throws BlockCorruptedException
    {
        if (size < entry.offset() + entry.length())
        {
            throw new BlockCorruptedException(where(generation, entry) + ": needs bytes [" + entry.offset() + ", " +
                (entry.offset() + entry.length()) + ") but the file has only " + size + " bytes (truncated)");
        }
    }

    private void readFully(final FileChannel channel, final ByteBuffer into, final long at, final long generation,
        final ManifestEntry entry) throws IOException
    {
        final int start = into.position();
        while (into.hasRemaining())
        {
            if (channel.read(into, at + into.position() - start) < 0)
            {
                throw new BlockCorruptedException(where(generation, entry) + ": the file ended at " +
                    (at + into.position() - start) + " (truncated)");
            }
        }
    }

    private static void compare(final long generation, final ManifestEntry entry, final long actual)
        throws BlockCorruptedException
    {
        if (actual != entry.checksum())
        {
            throw new BlockCorruptedException(where(generation, entry) + ": failed its checksum: expected " +
                BlockChecksum.describe(entry.checksum()) + ", actual " + BlockChecksum.describe(actual));
        }
    }

    private static String where(final long generation, final ManifestEntry entry)
    {
        return "generation " + generation + ", block '" + entry.tag() + "' (" + entry.length() + " bytes at offset " +
            entry.offset() + " of blocks-" + entry.fileGeneration() + ".dat)";
    }
}
