package dev.spillway.io;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import static java.lang.System.Logger.Level.WARNING;

/**
 * The private subdirectory {@code <dir>/spillway-<pid>-<n>/} of one open store, holding an {@code owner.pid} file
 * ({@code <pid> <process start millis>}). Opening one first removes those whose owner process is gone, which is how
 * spill files of a crashed run are removed on the next start.
 */
final class StoreDirectory
{
    private static final System.Logger LOG = System.getLogger(StoreDirectory.class.getName());
    static final String PREFIX = "spillway-";
    static final String OWNER_FILE = "owner.pid";

    private static final AtomicLong NEXT_ID = new AtomicLong(System.nanoTime());

    private final Path path;

    private StoreDirectory(final Path path)
    {
        this.path = path;
    }

    /** Removes stale store directories under {@code parent}, then creates a new one owned by this process. */
    static StoreDirectory create(final Path parent) throws IOException
    {
        Files.createDirectories(parent);
        removeStale(parent);
        final ProcessHandle self = ProcessHandle.current();
        while (true)
        {
            final Path dir = parent.resolve(PREFIX + self.pid() + "-" + NEXT_ID.incrementAndGet());
            try
            {
                Files.createDirectory(dir);
            }
            catch (final FileAlreadyExistsException e)
            {
                continue;
            }
            final long started = self.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
            Files.writeString(dir.resolve(OWNER_FILE), self.pid() + " " + started + "\n");
            return new StoreDirectory(dir);
        }
    }

    Path path()
    {
        return path;
    }

    /** Deletes the directory and everything in it. */
    void delete() throws IOException
    {
        deleteTree(path);
    }

    /** Removes the store directories this process created under {@code parent}, open or closed. */
    static void removeOwn(final Path parent) throws IOException
    {
        if (!Files.isDirectory(parent))
        {
            return;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(parent,
            PREFIX + ProcessHandle.current().pid() + "-*"))
        {
            for (final Path dir : dirs)
            {
                deleteTree(dir);
            }
        }
    }

    private static void removeStale(final Path parent) throws IOException
    {
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(parent, PREFIX + "*"))
        {
            for (final Path dir : dirs)
            {
                if (Files.isDirectory(dir) && isStale(dir))
                {
                    try
                    {
                        deleteTree(dir);
                    }
                    catch (final IOException e)
                    {
                        LOG.log(WARNING, "spillway: cannot remove stale store directory " + dir + ": " + e);
                    }
                }
            }
        }
    }

    /** Stale: the owner pid (from owner.pid, else from the name) is not running, or is a different, newer process. */
    private static boolean isStale(final Path dir)
    {
        final String[] owner = readOwner(dir);
        try
        {
            final Optional<ProcessHandle> process = ProcessHandle.of(Long.parseLong(owner[0]));
            final long recordedStart = owner.length > 1 ? Long.parseLong(owner[1]) : 0L;
            return process.isEmpty() || recordedStart != 0L && process.get().info().startInstant()
                .map(start -> start.toEpochMilli() != recordedStart)
                .orElse(false);
        }
        catch (final NumberFormatException e)
        {
            return false;
        }
    }

    private static String[] readOwner(final Path dir)
    {
        try
        {
            return Files.readString(dir.resolve(OWNER_FILE)).trim().split("\\s+");
        }
        catch (final IOException e)
        {
            final String[] nameParts = dir.getFileName().toString().split("-");
            return new String[] {nameParts.length > 1 ? nameParts[1] : ""};
        }
    }

    private static void deleteTree(final Path root) throws IOException
    {
        Files.walkFileTree(root, new SimpleFileVisitor<>()
        {
            @Override
            public FileVisitResult visitFile(final Path file, final BasicFileAttributes attrs) throws IOException
            {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(final Path dir, final IOException e) throws IOException
            {
                if (e != null)
                {
                    throw e;
                }
                Files.deleteIfExists(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
