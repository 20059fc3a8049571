package dev.spillway.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A memory cgroup that caps a child process's DRAM: heap, off-heap and page cache together. It uses cgroup v1's
 * memory controller where it is mounted ({@code /sys/fs/cgroup/memory}), or else the v2 unified hierarchy with the
 * memory controller ({@code /sys/fs/cgroup}). Needs root.
 */
final class MemoryCgroup implements AutoCloseable
{
    static final Path SYS_FS_CGROUP = Path.of("/sys/fs/cgroup");

    private final Hierarchy hierarchy;
    private final Path dir;

    private MemoryCgroup(final Hierarchy hierarchy, final Path dir)
    {
        this.hierarchy = hierarchy;
        this.dir = dir;
    }

    /** The files a memory group is driven through, which differ between cgroup v1 and v2. */
    record Hierarchy(Path root, boolean v2)
    {
        /** @return the memory hierarchy mounted under {@code sysFsCgroup}, v1 first, or null if there is none. */
        static Hierarchy find(final Path sysFsCgroup)
        {
            if (Files.isDirectory(sysFsCgroup.resolve("memory")))
            {
                return new Hierarchy(sysFsCgroup.resolve("memory"), false);
            }
            try
            {
                final String controllers = Files.readString(sysFsCgroup.resolve("cgroup.controllers"));
                return List.of(controllers.trim().split("\\s+")).contains("memory") ? new Hierarchy(sysFsCgroup, true) :
                    null;
            }
            catch (final IOException e)
            {
                return null;
            }
        }

        String limitFile()
        {
            return v2 ? "memory.max" : "memory.limit_in_bytes";
        }

        @Override
        public String toString()
        {
            return (v2 ? "cgroup v2 at " : "cgroup v1 memory controller at ") + root;
        }
    }

    /** @return why a group cannot be created here, or null if it can. */
    static String unavailableReason()
    {
        return unavailableReason(SYS_FS_CGROUP);
    }

    static String unavailableReason(final Path sysFsCgroup)
    {
        final Hierarchy h = Hierarchy.find(sysFsCgroup);
        if (h == null)
        {
            return "neither " + sysFsCgroup.resolve("memory") + " (cgroup v1) nor a memory controller in " +
                sysFsCgroup.resolve("cgroup.controllers") + " (cgroup v2) exists";
        }
        if (!Files.isWritable(h.root()))
        {
            return h.root() + " is not writable (creating a memory cgroup needs root)";
        }
        return null;
    }

    /** Creates a group limited to {@code limitBytes}, with swapping off. */
    static MemoryCgroup create(final String name, final long limitBytes) throws IOException
    {
        return create(SYS_FS_CGROUP, name, limitBytes);
    }

    static MemoryCgroup create(final Path sysFsCgroup, final String name, final long limitBytes) throws IOException
    {
        final Hierarchy h = Hierarchy.find(sysFsCgroup);
        if (h == null)
        {
            throw new IOException(unavailableReason(sysFsCgroup));
        }
        if (h.v2())
        {
            enableMemoryForChildren(h.root());
        }
        final Path dir = h.root().resolve(name);
        Files.createDirectories(dir);
        final MemoryCgroup group = new MemoryCgroup(h, dir);
        try
        {
            write(dir, h.limitFile(), Long.toString(limitBytes));
        }
        catch (final IOException e)
        {
            group.close();
            throw new IOException("cannot limit " + dir + " (" + h + ") to " + limitBytes + " bytes: " + e, e);
        }
        try
        {
            write(dir, h.v2() ? "memory.swap.max" : "memory.swappiness", "0");
        }
        catch (final IOException ignored)
        {
            // Not every kernel exposes it; with no swap configured it does not matter.
        }
        return group;
    }

    private static void enableMemoryForChildren(final Path root) throws IOException
    {
        final Path control = root.resolve("cgroup.subtree_control");
        if (!List.of(Files.readString(control).trim().split("\\s+")).contains("memory"))
        {
            Files.writeString(control, "+memory");
        }
    }

    private static void write(final Path dir, final String file, final String value) throws IOException
    {
        Files.writeString(dir.resolve(file), value);
    }

    /** @return {@code command} wrapped so that the process joins this group before it execs. */
    List<String> wrap(final List<String> command)
    {
        final List<String> wrapped = new ArrayList<>(List.of("/bin/sh", "-c",
            "echo $$ > '" + dir.resolve("cgroup.procs") + "' && exec \"$@\"", "memcap"));
        wrapped.addAll(command);
        return wrapped;
    }

    /** @return the most bytes the group used at once, or -1 where the kernel does not keep it (v2 before 5.19). */
    long peakBytes() throws IOException
    {
        try
        {
            return Long.parseLong(Files.readString(dir.resolve(hierarchy.v2() ? "memory.peak" :
                "memory.max_usage_in_bytes")).trim());
        }
        catch (final NoSuchFileException e)
        {
            return -1;
        }
    }

    /** @return how often the group hit its limit. */
    long limitHits() throws IOException
    {
        if (!hierarchy.v2())
        {
            return Long.parseLong(Files.readString(dir.resolve("memory.failcnt")).trim());
        }
        for (final String line : Files.readAllLines(dir.resolve("memory.events")))
        {
            if (line.startsWith("max "))
            {
                return Long.parseLong(line.substring(4).trim());
            }
        }
        throw new IOException(dir.resolve("memory.events") + " has no 'max' count");
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
            return insideLimitedCgroup(SYS_FS_CGROUP, Files.readAllLines(Path.of("/proc/self/cgroup")));
        }
        catch (final IOException e)
        {
            return false;
        }
    }

    /**
     * @param procSelfCgroup the lines of {@code /proc/self/cgroup}: {@code id:controllers:path}, where v2's single
     *                       line has id 0 and no controllers.
     */
    static boolean insideLimitedCgroup(final Path sysFsCgroup, final List<String> procSelfCgroup)
    {
        final Hierarchy h = Hierarchy.find(sysFsCgroup);
        if (h == null)
        {
            return false;
        }
        for (final String line : procSelfCgroup)
        {
            final String[] parts = line.split(":", 3);
            final boolean member = parts.length == 3 && (h.v2() ? parts[0].equals("0") && parts[1].isEmpty() :
                List.of(parts[1].split(",")).contains("memory"));
            if (member)
            {
                return limited(h.root().resolve(parts[2].substring(1)).resolve(h.limitFile()));
            }
        }
        return false;
    }

    private static boolean limited(final Path limit)
    {
        try
        {
            final String value = Files.readString(limit).trim();
            return !value.equals("max") && Long.parseLong(value) < (1L << 50);
        }
        catch (final IOException | NumberFormatException e)
        {
            return false;
        }
    }
}
