package dev.spillway.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * A benchmark's child process in a memory cgroup of its own, when one can be made here, so that its DRAM and that of
 * every process it starts (heap, off-heap and page cache) is capped together; its output goes to a log file.
 */
final class CappedChild implements AutoCloseable
{
    private final MemoryCgroup group;
    private final Process process;
    private final Thread pump;

    private CappedChild(final MemoryCgroup group, final Process process, final Thread pump)
    {
        this.group = group;
        this.process = process;
        this.pump = pump;
    }

    /**
     * Drops the page cache, so the child does not start with an earlier run's data, and starts {@code command} in a
     * new group limited to {@code cap} bytes; uncapped when no group can be made
     * ({@link MemoryCgroup#unavailableReason()}).
     *
     * @param name  the group's name.
     * @param log   receives standard output and error together.
     * @param lines told each line of that output once it is logged, or null.
     */
    static CappedChild start(final String name, final long cap, final List<String> command, final Path log,
        final Consumer<String> lines) throws IOException, InterruptedException
    {
        final boolean capped = MemoryCgroup.unavailableReason() == null;
        if (capped)
        {
            MemoryCgroup.dropCaches();
        }
        final MemoryCgroup group = capped ? MemoryCgroup.create(name, cap) : null;
        try
        {
            final Process p = new ProcessBuilder(capped ? group.wrap(command) : command).redirectErrorStream(true)
                .start();
            final PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8));
            final Thread pump = new Thread(() -> copy(p, out, lines), "spillway-bench-output");
            pump.setDaemon(true);
            pump.start();
            return new CappedChild(group, p, pump);
        }
        catch (final IOException | RuntimeException e)
        {
            if (group != null)
            {
                group.close();
            }
            throw e;
        }
    }

    private static void copy(final Process p, final PrintWriter out, final Consumer<String> lines)
    {
        try (out; BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
            StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                out.println(line);
                if (lines != null)
                {
                    lines.accept(line);
                }
            }
        }
        catch (final IOException ignored)
        {
            // the child ended
        }
    }

    Process process()
    {
        return process;
    }

    /** @return the most bytes the group used at once, or -1 when uncapped. */
    long peakBytes() throws IOException
    {
        return group == null ? -1 : group.peakBytes();
    }

    /** Kills the child and every process it started with SIGKILL, and reaps it. */
    void kill() throws InterruptedException
    {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor();
    }

    /** Kills what is left of the child, waits (up to 10 s) for the rest of its output, and removes the group. */
    @Override
    public void close() throws IOException, InterruptedException
    {
        if (process.isAlive())
        {
            kill();
        }
        pump.join(10_000);
        if (group != null)
        {
            group.close();
        }
    }
}
