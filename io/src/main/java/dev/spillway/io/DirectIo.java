package dev.spillway.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static java.lang.System.Logger.Level.WARNING;

/** Whether a directory's file system takes {@code O_DIRECT}, and the alignment it asks of buffers, offsets, lengths. */
public final class DirectIo
{
    private static final System.Logger LOG = System.getLogger(DirectIo.class.getName());

    /**
     * {@code com.sun.nio.file.ExtendedOpenOption.DIRECT}, looked up by name: a JDK-specific option that javac flags as
     * internal API on newer JDKs, and the library compiles without warnings. Null where the JDK lacks it.
     */
    public static final OpenOption DIRECT = lookUpDirect();

    /** {@code O_DIRECT} buffers, file offsets and lengths are multiples of this. */
    public static final int ALIGNMENT = 4096;

    private DirectIo()
    {
    }

    /**
     * Probes {@code dir} with a throwaway file opened with {@code O_DIRECT}; if that is refused, says so once on
     * stderr, naming {@code fallback} (what the caller does instead).
     */
    public static boolean supported(final Path dir, final String fallback)
    {
        if (DIRECT == null)
        {
            LOG.log(WARNING, "spillway: this JDK has no O_DIRECT open option; " + fallback);
            return false;
        }
        final Path probe = dir.resolve("direct-io.probe");
        try
        {
            FileChannel.open(probe, StandardOpenOption.CREATE, StandardOpenOption.WRITE, DIRECT).close();
            return true;
        }
        catch (final IOException | UnsupportedOperationException e)
        {
            LOG.log(WARNING, "spillway: " + dir + " does not support O_DIRECT (" + e + "); " + fallback);
            return false;
        }
        finally
        {
            try
            {
                Files.deleteIfExists(probe);
            }
            catch (final IOException e)
            {
                LOG.log(WARNING, "spillway: cannot delete " + probe + ": " + e);
            }
        }
    }

    /** @return {@code value} rounded up to a multiple of {@link #ALIGNMENT}. */
    public static long alignUp(final long value)
    {
        return (value + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /** @return a direct buffer whose address is a multiple of {@link #ALIGNMENT}, with {@code capacity} bytes. */
    public static ByteBuffer alignedBuffer(final int capacity)
    {
        return ByteBuffer.allocateDirect(capacity + ALIGNMENT).alignedSlice(ALIGNMENT).limit(capacity).slice();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static OpenOption lookUpDirect()
    {
        try
        {
            return (OpenOption)Enum.valueOf((Class)Class.forName("com.sun.nio.file.ExtendedOpenOption"), "DIRECT");
        }
        catch (final ClassNotFoundException | IllegalArgumentException e)
        {
            return null;
        }
    }
}
