package dev.spillway.kernels.mmap;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's block-device traffic from {@code /proc/self/io}: {@code read_bytes} (reads that reached the
 * device) and {@code write_bytes} (bytes Linux charges when a page is dirtied for write-back).
 */
final class ProcIo
{
    private static final Path FILE = Path.of("/proc/self/io");

    private ProcIo()
    {
    }

    /** @return {@code {read_bytes, write_bytes}}, or zeros where the file cannot be read. */
    static long[] read()
    {
        final long[] counters = new long[2];
        try
        {
            for (final String line : Files.readAllLines(FILE))
            {
                if (line.startsWith("read_bytes:"))
                {
                    counters[0] = Long.parseLong(line.substring("read_bytes:".length()).trim());
                }
                else if (line.startsWith("write_bytes:"))
                {
                    counters[1] = Long.parseLong(line.substring("write_bytes:".length()).trim());
                }
            }
        }
        catch (final IOException | RuntimeException e)
        {
            return new long[2];
        }
        return counters;
    }
}
