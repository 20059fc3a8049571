package dev.spillway.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.zip.CRC32C;

/**
 * The {@code direct} store: payloads in preallocated slab files, written and read with {@code O_DIRECT} straight
 * from and into the caller's aligned buffers, indexed by a persisted Chronicle Map ({@link BlockIndex}).
 *
 * <p>Both halves are checksummed: the payload's CRC32C sits in its index record, and the record its own CRC32C, so
 * corruption of a slab or of the index file fails the read naming the file and the block. The index is never read
 * back across runs: every store creates a fresh directory and removes those of dead processes.
 *
 * <p>A write goes to a fresh extent, then the index entry is replaced, then the old extent is freed, so a failed
 * write leaves the old block visible. Lengths that are not a multiple of the alignment are written rounded up (the
 * buffer contract provides the room) and their true length recorded.
 */
final class DirectIoStore implements Store
{
    static final String NAME = "direct";

    /** Slabs are at least this big... */
    private static final long MIN_SLAB_BYTES = 256L << 20;
    /** ...and hold at least this many average blocks. */
    private static final int AVERAGE_BLOCKS_PER_SLAB = 16;

    private final StoreDirectory directory;
    private final int alignment;
    private final BlockIndex index;
    private final SlabFiles slabs;
    private final CRC32C crc = new CRC32C();
    private boolean closed;

    DirectIoStore(final StoreSettings settings) throws IOException
    {
        this(settings, slabBytes(settings));
    }

    /** @return the usual slab size for {@code settings}, before alignment and the disk cap. */
    static long slabBytes(final StoreSettings settings)
    {
        return Math.max(MIN_SLAB_BYTES, (long)AVERAGE_BLOCKS_PER_SLAB * settings.averageBlockBytes());
    }

    /** @param slabBytes the usual slab size, rounded up to the alignment. */
    DirectIoStore(final StoreSettings settings, final long slabBytes) throws IOException
    {
        directory = StoreDirectory.create(settings.dir());
        BlockIndex createdIndex = null;
        try
        {
            alignment = Math.toIntExact(Files.getFileStore(directory.path()).getBlockSize());
            createdIndex = new BlockIndex(directory.path().resolve("index.cmap"), settings.maxBlocks());
            if (createdIndex.fileBytes() >= settings.diskCapBytes())
            {
                throw new IllegalArgumentException("disk cap of " + settings.diskCapBytes() + " bytes is too small: " +
                    "the index for " + settings.maxBlocks() + " blocks alone takes " + createdIndex.fileBytes());
            }
            index = createdIndex;
            slabs = new SlabFiles(directory.path(), alignment, Blocks.alignUp(slabBytes, alignment),
                settings.diskCapBytes(), index::fileBytes);
        }
        catch (final IOException | RuntimeException e)
        {
            if (createdIndex != null)
            {
                createdIndex.close();
            }
            directory.delete();
            throw e;
        }
    }

    @Override
    public String name()
    {
        return NAME;
    }

    /** @return the block size of the file system holding the slabs. */
    @Override
    public int alignment()
    {
        return alignment;
    }

    /** @return whether the slab files are opened with {@code O_DIRECT} (not where the file system refuses it). */
    boolean directIo()
    {
        return slabs.directIo();
    }

    @Override
    public void write(final String tag, final ByteBuffer src, final long version) throws IOException
    {
        final int position = src.position();
        final int length = src.remaining();
        Blocks.checkBuffer(src, alignment, length, tag);
        final int checksum = Blocks.crc32c(crc, src, position, length);
        final Extent extent = slabs.allocate(tag, Blocks.alignUp(length, alignment));
        final BlockRecord previous;
        try
        {
            slabs.write(extent, src.duplicate().limit(position + (int)extent.size()).position(position));
            previous = index.put(tag, new BlockRecord(extent.slab(), extent.offset(), length, version, checksum));
        }
        catch (final IOException e)
        {
            slabs.free(extent);
            throw Blocks.isNoSpace(e) ? Blocks.diskFull(tag, length, e) : e;
        }
        catch (final RuntimeException e)
        {
            slabs.free(extent);
            throw e;
        }
        if (previous != null)
        {
            slabs.free(previous.extent(alignment));
        }
    }

    @Override
    public int read(final String tag, final ByteBuffer dst) throws IOException
    {
        final BlockRecord record = index.get(tag);
        if (record == null)
        {
            throw new BlockNotFoundException("no block for tag '" + tag + "' in the " + NAME + " store (index " +
                index.path() + ")");
        }
        final int length = record.length();
        Blocks.checkBuffer(dst, alignment, length, tag);
        final int position = dst.position();
        final Extent extent = record.extent(alignment);
        final long read = slabs.read(extent, dst.duplicate().limit(position + (int)extent.size()).position(position));
        if (read < length)
        {
            throw new BlockCorruptedException(String.format(
                "block '%s' is truncated: expected %d bytes at offset %d of %s, actual %d bytes",
                tag, length, extent.offset(), slabs.path(extent.slab()), read));
        }
        final int actual = Blocks.crc32c(crc, dst, position, length);
        if (actual != record.checksum())
        {
            throw new BlockCorruptedException(String.format(
                "block '%s' failed its CRC32C check: expected %08x, actual %08x (%d bytes at offset %d of %s)",
                tag, record.checksum(), actual, length, extent.offset(), slabs.path(extent.slab())));
        }
        return length;
    }

    @Override
    public BlockInfo info(final String tag) throws IOException
    {
        final BlockRecord record = index.get(tag);
        return record == null ? null : new BlockInfo(record.length(), record.version(), record.checksum());
    }

    @Override
    public void delete(final String tag) throws IOException
    {
        final BlockRecord previous = index.remove(tag);
        if (previous != null)
        {
            slabs.free(previous.extent(alignment));
        }
    }

    /** @return 0: blocks move between the caller's buffers and the disk without staging. */
    @Override
    public long stagingBytes()
    {
        return 0;
    }

    /** @return bytes of the slab files (all allocated up front) and the index file. */
    @Override
    public long diskBytesUsed()
    {
        return slabs.bytes() + index.fileBytes();
    }

    @Override
    public void close() throws IOException
    {
        if (closed)
        {
            return;
        }
        closed = true;
        try
        {
            index.close();
        }
        finally
        {
            try
            {
                slabs.close();
            }
            finally
            {
                directory.delete();
            }
        }
    }
}
