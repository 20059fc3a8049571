package dev.spillway.kernels.mmap;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One sparse file holding tiles, grown a chunk at a time; each chunk is mapped once, read-write, and every tile is a
 * 4 KiB-aligned slice of one chunk. Pages the tiles never touch take no disk space.
 */
final class TileFile
{
    static final int ALIGNMENT = 4096;

    private final Path path;
    private final RandomAccessFile file;
    private final long chunkBytes;
    private MappedByteBuffer chunk;
    private long chunkFill;
    private long fileBytes;

    /**
     * @param dir        directory for the file; its name is unique, so graphs may share {@code dir}.
     * @param chunkBytes bytes mapped at a time, a multiple of {@link #ALIGNMENT}.
     */
    TileFile(final Path dir, final long chunkBytes)
    {
        if (chunkBytes <= 0 || chunkBytes % ALIGNMENT != 0 || chunkBytes > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("chunk of " + chunkBytes + " B is not a positive multiple of " +
                ALIGNMENT + " B below 2 GiB");
        }
        this.chunkBytes = chunkBytes;
        try
        {
            Files.createDirectories(dir);
            path = Files.createTempFile(dir, "mmap-tiles-", ".bin");
            file = new RandomAccessFile(path.toFile(), "rw");
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot create a tile file in " + dir, e);
        }
    }

    /** @return a writable slice of {@code size} bytes at absolute index 0, in big-endian order as sliced. */
    synchronized ByteBuffer allocate(final String tag, final int size)
    {
        final long aligned = align(size);
        if (chunk == null || chunkFill + aligned > chunk.capacity())
        {
            map(tag, Math.min(Math.max(chunkBytes, aligned), Integer.MAX_VALUE));
        }
        final ByteBuffer tile = chunk.slice((int)chunkFill, size);
        chunkFill += aligned;
        return tile;
    }

    /** Drops the mappings to the garbage collector and deletes the file; its space is freed once they are gone. */
    synchronized void delete()
    {
        chunk = null;
        try
        {
            file.close();
            Files.deleteIfExists(path);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot delete tile file " + path, e);
        }
    }

    private void map(final String tag, final long bytes)
    {
        try
        {
            final long start = fileBytes;
            fileBytes = align(start + bytes);
            file.setLength(fileBytes);
            chunk = file.getChannel().map(FileChannel.MapMode.READ_WRITE, start, bytes);
            chunkFill = 0;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot map " + bytes + " B of " + path + " for tile '" + tag + "'", e);
        }
    }

    private static long align(final long size)
    {
        return (size + ALIGNMENT - 1) & -(long)ALIGNMENT;
    }
}
