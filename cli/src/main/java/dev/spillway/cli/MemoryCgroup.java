package dev.spillway.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A cgroup v1 memory controller group that caps a child process's DRAM: heap, off-heap and page cache together.
 * Needs root and a mounted {@code /sys/fs/cgroup/memory}.
 */
final class MemoryCgroup implements AutoCloseable
{
    static final Path ROOT = Path.of("/sys/fs/cgroup/memory");

    private final Path dir;

    private MemoryCgroup(final Path dir)
    {
        this.dir = dir;
    }

    /** @return why a group cannot be created here, or null if it can. */
    static String unavailableReason()
    {
        if (!Files.isDirectory(ROOT))
        {
            return ROOT + " does not exist (no cgroup v1 memory controller)";
        }
        if (!Files.isWritable(ROOT))
        {
            return ROOT + " is not writable (creating a memory cgroup needs root)";
        }
        return null;
    }

    /** Creates a group limited to {@code limitBytes}, with swapping off. */
    static MemoryCgroup create(final String name, final long limitBytes) throws IOException
    {
        final Path dir = ROOT.resolve(name);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("memory.limit_in_bytes"), Long.toString(limitBytes));
        try
        {
            Files.writeString(dir.resolve("memory.swappiness"), "0");
        }
        catch (final IOException ignored)
        {
            // Not every kernel exposes it; with no swap configured it does not matter.
        }
        return new MemoryCgroup(dir);
    }

    /** @return {@code command} wrapped so that the process joins this group before it execs. */
    List<String> wrap(final List<String> command)
    {
        final List<String> wrapped = new ArrayList<>(List.of("/bin/sh", "-c",
            "echo $$ > '" + dir.resolve("cgroup.procs") + "' && exec \"$@\"", "memcap"));
        wrapped.addAll(command);
        return wrapped;
    }

    /** @return the most bytes the group used at once. */
    long peakBytes() throws IOException
    {
        return Long.parseLong(Files.readString(dir.resolve("memory.max_usage_in_bytes")).trim());
    }

    /** @return how often the group hit its limit. */
    long limitHits() throws IOException
    {
        return Long.parseLong(Files.readString(dir.resolve("memory.failcnt")).trim());
    }

    /** Writes dirty pages back and drops the page cache, so a run does not start with the previous run's data. */
    static void dropCaches() throws IOException, InterruptedException
    {
        new ProcessBuilder("sync").inheritIO().start().waitFor();
        Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3");
    }

    @Override
    public void close() throws IOException
    {
        for (int attempt = 0; ; attempt++)
        {
            try
            {
                Files.deleteIfExists(dir);
                return;
            }
            catch (final IOException e)
            {
                if (attempt == 50)
                {
                    throw new IOException("cannot remove memory cgroup " + dir + ": " + e, e);
                }
                try
                {
                    Thread.sleep(100);
                }
                catch (final InterruptedException interrupted)
                {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while removing " + dir, interrupted);
                }
            }
        }
    }

    /** @return whether this process runs in a memory cgroup limited below the machine's RAM. */
    static boolean insideLimitedCgroup()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/cgroup")))
            {
                final String[] parts = line.split(":", 3);
                if (parts.length == 3 && parts[1].contains("memory"))
                {
                    final Path limit = ROOT.resolve(parts[2].substring(1)).resolve("memory.limit_in_bytes");
                    return Files.exists(limit) && Long.parseLong(Files.readString(limit).trim()) < (1L << 50);
                }
            }
        }
        catch (final IOException | NumberFormatException e)
        {
            return false;
        }
        return false;
    }
}
