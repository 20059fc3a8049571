package dev.spillway.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** Small records replaced whole: a reader sees the old text or the new, also after a crash or a power loss. */
public final class DurableFiles
{
    private DurableFiles()
    {
    }

    /**
     * Writes {@code text} (US-ASCII) to {@code file}'s sibling {@code NAME.tmp}, forces it, renames it over
     * {@code file} atomically and forces the directory.
     *
     * @throws IOException naming {@code file} if it cannot be replaced atomically there.
     */
    public static void replace(final Path file, final String text) throws IOException
    {
        final Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING))
        {
            final ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
            while (bytes.hasRemaining())
            {
                channel.write(bytes);
            }
            channel.force(true);
        }
        try
        {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (final AtomicMoveNotSupportedException e)
        {
            throw new IOException("cannot replace " + file + " atomically: " + e.getMessage(), e);
        }
        syncDirectory(file.toAbsolutePath().getParent());
    }

    /** @return {@code file}'s text (US-ASCII), trimmed, or null if there is no such file. */
    public static String read(final Path file) throws IOException
    {
        try
        {
            return Files.readString(file, StandardCharsets.US_ASCII).trim();
        }
        catch (final NoSuchFileException e)
        {
            return null;
        }
    }

    /** Forces {@code dir}'s entries to disk; a file system that cannot fsync a directory still renames atomically. */
    public static void syncDirectory(final Path dir)
    {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ))
        {
            channel.force(true);
        }
        catch (final IOException e)
        {
            // nothing more can be done there
        }
    }
}
