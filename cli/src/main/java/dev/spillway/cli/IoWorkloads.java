package dev.spillway.cli;

import dev.spillway.io.DirectIo;
import dev.spillway.io.Store;
import dev.spillway.io.StoreKind;
import dev.spillway.io.StoreSettings;
import dev.spillway.io.Stores;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * The timed passes of {@code bench io}: write every block, then read every block back and check it, either through a
 * {@link Store} or through one raw {@code O_DIRECT} file. Blocks come from one prepared buffer; only a few stamped
 * longs change per block, so the timed loops measure IO rather than filling memory.
 */
final class IoWorkloads
{
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private final Path dir;
    private final int block;
    private final int blocks;
    private final StoreSettings settings;
    private final ByteBuffer src;
    private final ByteBuffer dst;
    private final String[] tags;
    private final int[] stamps;
    private final int probe;

    /** Seconds taken by the write pass and by the read pass. */
    record Timing(double writeSeconds, double readSeconds)
    {
    }

    IoWorkloads(final Path dir, final int block, final int blocks, final StoreSettings settings)
    {
        this.dir = dir;
        this.block = block;
        this.blocks = blocks;
        this.settings = settings;
        src = aligned(block);
        dst = aligned(block);
        for (int i = 0; i < block; i += Long.BYTES)
        {
            src.putLong(i, i * GOLDEN);
        }
        tags = new String[blocks];
        for (int i = 0; i < blocks; i++)
        {
            tags[i] = "block-" + i;
        }
        stamps = new int[] {0, block / 2, block - Long.BYTES};
        probe = block / 4 & -Long.BYTES;
    }

    private static ByteBuffer aligned(final int bytes)
    {
        return DirectIo.alignedBuffer(bytes).order(
            ByteOrder.nativeOrder());
    }

    /** @return the timings of spilling every block to a fresh store of {@code kind} and restoring it. */
    Timing store(final StoreKind kind) throws IOException
    {
        final String name = kind.name().toLowerCase(Locale.ROOT) + " store";
        try (Store store = Stores.open(kind, settings))
        {
            final long start = System.nanoTime();
            for (int i = 0; i < blocks; i++)
            {
                stamp(i);
                store.write(tags[i], src, 1);
            }
            final long written = System.nanoTime();
            for (int i = 0; i < blocks; i++)
            {
                final int length = store.read(tags[i], dst);
                if (length != block)
                {
                    throw new IOException(name + " returned " + length + " bytes for " + tags[i] + ", not " + block);
                }
                verify(name, i);
            }
            return timing(start, written, System.nanoTime());
        }
    }

    /** @return the timings of writing every block sequentially to one {@code O_DIRECT} file and reading it back. */
    Timing raw() throws IOException
    {
        final Path file = dir.resolve("raw-o_direct.bin");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
            StandardOpenOption.READ, DirectIo.DIRECT))
        {
            final long start = System.nanoTime();
            for (int i = 0; i < blocks; i++)
            {
                stamp(i);
                transfer(ch, src, (long)i * block, true);
            }
            final long written = System.nanoTime();
            for (int i = 0; i < blocks; i++)
            {
                transfer(ch, dst, (long)i * block, false);
                verify("raw file", i);
            }
            return timing(start, written, System.nanoTime());
        }
        finally
        {
            Files.deleteIfExists(file);
        }
    }

    private static Timing timing(final long start, final long written, final long read)
    {
        return new Timing((written - start) / 1e9, (read - written) / 1e9);
    }

    private static void transfer(final FileChannel ch, final ByteBuffer buffer, final long offset, final boolean write)
        throws IOException
    {
        buffer.position(0);
        while (buffer.hasRemaining())
        {
            final long at = offset + buffer.position();
            if ((write ? ch.write(buffer, at) : ch.read(buffer, at)) < 0)
            {
                throw new IOException("raw file ended at byte " + at);
            }
        }
        buffer.position(0);
    }

    private static long stampValue(final int index, final int offset)
    {
        return (index + 1) * GOLDEN ^ offset;
    }

    private void stamp(final int index)
    {
        for (final int offset : stamps)
        {
            src.putLong(offset, stampValue(index, offset));
        }
    }

    private void verify(final String source, final int index) throws IOException
    {
        for (final int offset : stamps)
        {
            if (dst.getLong(offset) != stampValue(index, offset))
            {
                throw new IOException(source + " returned wrong bytes for " + tags[index] + " at offset " + offset);
            }
        }
        if (dst.getLong(probe) != src.getLong(probe))
        {
            throw new IOException(source + " returned wrong bytes for " + tags[index] + " at offset " + probe);
        }
    }
}
