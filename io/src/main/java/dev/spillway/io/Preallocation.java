package dev.spillway.io;

import com.sun.jna.Library;
import com.sun.jna.Native;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;

import static java.lang.System.Logger.Level.WARNING;

/**
 * Reserves disk blocks for a file with {@code posix_fallocate} (through JNA), so that a slab's space is taken, and
 * ENOSPC reported, when the slab is created rather than in the middle of a block write. Where the C library lacks
 * it, the file is extended sparsely instead, with a one-line warning.
 */
final class Preallocation
{
    private static final System.Logger LOG = System.getLogger(Preallocation.class.getName());
    private static final int O_RDWR = 2;

    private static volatile boolean warned;

    private Preallocation()
    {
    }

    /** The libc functions used. */
    private interface LibC extends Library
    {
        LibC INSTANCE = Native.load("c", LibC.class);

        int open(String path, int flags);

        int posix_fallocate(int fd, long offset, long length);

        int close(int fd);

        String strerror(int errno);
    }

    /**
     * Makes {@code file} (which must exist) {@code bytes} long with all its blocks allocated.
     *
     * @throws IOException with the message "No space left on device" when the disk is full.
     */
    static void reserve(final Path file, final long bytes) throws IOException
    {
        final int errno;
        try
        {
            errno = fallocate(file, bytes);
        }
        catch (final LinkageError e)
        {
            extendSparse(file, bytes, e);
            return;
        }
        if (errno != 0)
        {
            throw new IOException("cannot preallocate " + bytes + " bytes for " + file + ": " +
                LibC.INSTANCE.strerror(errno));
        }
    }

    /** @return 0 or the errno of {@code posix_fallocate}. */
    private static int fallocate(final Path file, final long bytes) throws IOException
    {
        final int fd = LibC.INSTANCE.open(file.toString(), O_RDWR);
        if (fd < 0)
        {
            throw new IOException("cannot open " + file + " to preallocate it: errno " + Native.getLastError());
        }
        try
        {
            return LibC.INSTANCE.posix_fallocate(fd, 0, bytes);
        }
        finally
        {
            LibC.INSTANCE.close(fd);
        }
    }

    private static void extendSparse(final Path file, final long bytes, final LinkageError why) throws IOException
    {
        if (!warned)
        {
            warned = true;
            LOG.log(WARNING, "spillway: posix_fallocate unavailable (" + why + "); slab files are sparse");
        }
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.setLength(bytes);
        }
    }
}
