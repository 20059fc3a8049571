package dev.spillway.io;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The slab files of a {@link DirectIoStore} and the extents allocated in them.
 *
 * <p>Slabs are preallocated one at a time, each {@code slabBytes} long (or just big enough for an outsized block),
 * as long as the disk cap allows. Extents are taken from {@link FreeExtents} (freed ones, merged with free
 * neighbours) when one fits, else carved from the end of the newest slab.
 */
final class SlabFiles implements Closeable
{
    private final Path dir;
    private final int alignment;
    private final long slabBytes;
    private final long capBytes;
    private final LongSupplier otherBytes;
    private final OpenOption[] options;
    private final List<FileChannel> channels = new ArrayList<>();
    private final FreeExtents free = new FreeExtents();
    private long slabsBytes;
    private long tail;
    private long tailEnd;

    /**
     * @param dir        where the slab files go.
     * @param alignment  the direct IO alignment.
     * @param slabBytes  the usual slab size, aligned.
     * @param capBytes   the disk cap for the slabs and {@code otherBytes} together.
     * @param otherBytes the bytes of the store's other files.
     */
    SlabFiles(final Path dir, final int alignment, final long slabBytes, final long capBytes,
        final LongSupplier otherBytes)
    {
        this.dir = dir;
        this.alignment = alignment;
        this.slabBytes = slabBytes;
        this.capBytes = capBytes;
        this.otherBytes = otherBytes;
        this.options = DirectIo.supported(dir, "using buffered IO") ?
            new OpenOption[] {StandardOpenOption.READ, StandardOpenOption.WRITE, DirectIo.DIRECT} :
            new OpenOption[] {StandardOpenOption.READ, StandardOpenOption.WRITE};
    }

    /** @return whether the slab files are opened with {@code O_DIRECT}. */
    boolean directIo()
    {
        return options.length == 3;
    }

    /** @return bytes of all slab files, all allocated on disk. */
    long bytes()
    {
        return slabsBytes;
    }

    Path path(final int slab)
    {
        return dir.resolve("slab-" + slab + ".dat");
    }

    /**
     * @param size aligned bytes wanted.
     * @return a free extent of exactly {@code size} bytes.
     * @throws StoreFullException if a new slab is needed and the cap or the disk cannot take it.
     */
    Extent allocate(final String tag, final long size) throws IOException
    {
        if (size == 0)
        {
            return new Extent(0, 0, 0);
        }
        final Extent reused = free.take(size);
        if (reused != null)
        {
            return reused;
        }
        if (tailEnd - tail < size)
        {
            addSlab(tag, size);
        }
        final Extent extent = new Extent(channels.size() - 1, tail, size);
        tail += size;
        return extent;
    }

    /** Returns an extent to the free list, or to the unallocated end of the newest slab if it borders it. */
    void free(final Extent extent)
    {
        if (extent.size() == 0)
        {
            return;
        }
        final Extent merged = free.add(extent);
        if (merged.slab() == channels.size() - 1 && merged.offset() + merged.size() == tail)
        {
            free.remove(merged);
            tail = merged.offset();
        }
    }

    /** Writes all of {@code src} (position to limit, aligned) at the extent. */
    void write(final Extent extent, final ByteBuffer src) throws IOException
    {
        if (extent.size() == 0)
        {
            return;
        }
        final FileChannel channel = channels.get(extent.slab());
        long at = extent.offset();
        while (src.hasRemaining())
        {
            at += channel.write(src, at);
        }
    }

    /**
     * Reads the extent into {@code dst} (position to limit, aligned) until it is full or the file ends.
     *
     * @return bytes read, fewer than asked if the slab file was truncated.
     */
    long read(final Extent extent, final ByteBuffer dst) throws IOException
    {
        if (extent.size() == 0)
        {
            return 0;
        }
        final FileChannel channel = channels.get(extent.slab());
        final int start = dst.position();
        while (dst.hasRemaining())
        {
            final int n = channel.read(dst, extent.offset() + dst.position() - start);
            if (n <= 0 || n % alignment != 0)
            {
                break;
            }
        }
        return dst.position() - start;
    }

    @Override
    public void close() throws IOException
    {
        IOException failure = null;
        for (final FileChannel channel : channels)
        {
            try
            {
                channel.close();
            }
            catch (final IOException e)
            {
                failure = e;
            }
        }
        if (failure != null)
        {
            throw failure;
        }
    }

    private void addSlab(final String tag, final long size) throws IOException
    {
        final long used = slabsBytes + otherBytes.getAsLong();
        final long slabSize = Math.min(Math.max(slabBytes, size), Blocks.alignDown(capBytes - used, alignment));
        if (slabSize < size)
        {
            throw new StoreFullException("store full: block '" + tag + "' needs " + size + " bytes of disk but the cap of " +
                capBytes + " bytes leaves " + Math.max(0, capBytes - used) + " (" + used + " in use, " +
                (free.bytes() + tailEnd - tail) + " free in pieces too small)");
        }
        final Path path = path(channels.size());
        final long reserved;
        final FileChannel channel;
        try
        {
            reserved = reserve(path, slabSize, size);
            channel = FileChannel.open(path, options);
        }
        catch (final IOException e)
        {
            Files.deleteIfExists(path);
            throw Blocks.isNoSpace(e) ? Blocks.diskFull(tag, size, e) : e;
        }
        if (tailEnd > tail)
        {
            free.add(new Extent(channels.size() - 1, tail, tailEnd - tail));
        }
        channels.add(channel);
        slabsBytes += reserved;
        tail = 0;
        tailEnd = reserved;
    }

    /** Creates a slab file of {@code slabSize} bytes, or on a nearly full disk of {@code size}; @return its size. */
    private static long reserve(final Path path, final long slabSize, final long size) throws IOException
    {
        Files.createFile(path);
        try
        {
            Preallocation.reserve(path, slabSize);
            return slabSize;
        }
        catch (final IOException e)
        {
            if (slabSize == size || !Blocks.isNoSpace(e))
            {
                throw e;
            }
        }
        Files.delete(path);
        Files.createFile(path);
        Preallocation.reserve(path, size);
        return size;
    }
}
