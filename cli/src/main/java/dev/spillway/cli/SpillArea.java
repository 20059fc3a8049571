package dev.spillway.cli;

import dev.spillway.io.Stores;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The spill directory of a run ({@code --dir}) and what this process created in it, so that an interrupted run can
 * remove exactly that: its stores' directories, its subdirectories, and {@code --dir} itself if the run created it and
 * nothing else is left in it.
 */
final class SpillArea
{
    private final Path base;
    /** Directories this run created, newest first; removed when empty. */
    private final Deque<Path> created = new ArrayDeque<>();
    /** Temporary directories of this run, removed with their contents. */
    private final Deque<Path> temporaries = new ArrayDeque<>();

    private SpillArea(final Path base)
    {
        this.base = base;
    }

    /**
     * Creates {@code dir} if needed and proves it writable.
     *
     * @throws IOException naming {@code --dir} and the reason.
     */
    static SpillArea prepare(final Path dir) throws IOException
    {
        final SpillArea area = new SpillArea(dir.toAbsolutePath().normalize());
        try
        {
            area.directory(area.base);
            Files.deleteIfExists(Files.createTempFile(area.base, "probe", ".tmp"));
        }
        catch (final IOException e)
        {
            throw new IOException("--dir " + area.base + " is not a writable directory (" + e + ")", e);
        }
        return area;
    }

    /** @return {@code --dir}, absolute. */
    Path base()
    {
        return base;
    }

    /** @return {@code --dir}/{@code name}, created if absent (and then removed with the area). */
    synchronized Path subdirectory(final String name) throws IOException
    {
        return directory(base.resolve(name));
    }

    /** @return a fresh temporary directory in {@code --dir}. */
    synchronized Path temporary(final String prefix) throws IOException
    {
        final Path dir = Files.createTempDirectory(base, prefix);
        temporaries.push(dir);
        return dir;
    }

    /** Removes this process's stores and what the run created, newest first; keeps anything else. */
    synchronized void remove() throws IOException
    {
        for (final Path dir : temporaries)
        {
            Dirs.deleteTree(dir);
        }
        Stores.removeOwn(base);
        for (final Path dir : created)
        {
            Stores.removeOwn(dir);
            try
            {
                Files.deleteIfExists(dir);
            }
            catch (final DirectoryNotEmptyException e)
            {
                // other files are in it: keep it
            }
        }
    }

    /** Creates {@code dir} and its missing parents, remembering each. */
    private Path directory(final Path dir) throws IOException
    {
        if (!Files.isDirectory(dir))
        {
            if (dir.getParent() != null)
            {
                directory(dir.getParent());
            }
            try
            {
                Files.createDirectory(dir);
                created.push(dir);
            }
            catch (final FileAlreadyExistsException e)
            {
                if (!Files.isDirectory(dir))
                {
                    throw e;
                }
                // another rank of this job created it just now
            }
        }
        return dir;
    }
}
