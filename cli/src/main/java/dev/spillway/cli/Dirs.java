package dev.spillway.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** File tree helpers. */
final class Dirs
{
    private Dirs()
    {
    }

    /** @return the bytes of the regular files under {@code dir}, 0 if it does not exist. */
    static long size(final Path dir) throws IOException
    {
        if (!Files.exists(dir))
        {
            return 0;
        }
        try (Stream<Path> paths = Files.walk(dir))
        {
            long bytes = 0;
            for (final Path p : (Iterable<Path>)paths.filter(Files::isRegularFile)::iterator)
            {
                bytes += Files.size(p);
            }
            return bytes;
        }
    }

    /** Deletes {@code dir} and everything under it, if it exists. */
    static void deleteTree(final Path dir) throws IOException
    {
        if (!Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir))
        {
            for (final Path p : (Iterable<Path>)paths.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.delete(p);
            }
        }
    }

    /**
     * Creates {@code dir} if needed and proves that a file can be written and removed in it.
     *
     * @return null if it can, else why not, e.g. "cannot create it: Read-only file system".
     */
    static String whyUnwritable(final Path dir)
    {
        try
        {
            Files.createDirectories(dir);
        }
        catch (final IOException e)
        {
            return "cannot create it: " + reason(dir, e);
        }
        try
        {
            Files.delete(Files.writeString(Files.createTempFile(dir, ".probe", ".tmp"), "probe"));
            return null;
        }
        catch (final IOException e)
        {
            return "cannot write in it: " + reason(dir, e);
        }
    }

    private static String reason(final Path dir, final IOException e)
    {
        if (e instanceof FileAlreadyExistsException f && f.getFile() != null && !Files.isDirectory(Path.of(f.getFile())))
        {
            return f.getFile().equals(dir.toString()) ? "a file, not a directory, is there" : f.getFile() +
                " is a file, not a directory";
        }
        if (e instanceof FileSystemException f)
        {
            return f.getReason() != null ? f.getReason() : e instanceof NoSuchFileException ?
                "No such file or directory" : e instanceof AccessDeniedException ? "Permission denied" :
                e.getClass().getSimpleName();
        }
        return e.toString();
    }
}
