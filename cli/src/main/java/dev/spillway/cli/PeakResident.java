package dev.spillway.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** This process's peak resident set ({@code VmHWM} in {@code /proc/self/status}): heap, off-heap and code touched. */
final class PeakResident
{
    private static final Path STATUS = Path.of("/proc/self/status");

    private PeakResident()
    {
    }

    /** @return the most bytes this process held in DRAM at once so far, or -1 where the system does not say. */
    static long bytes()
    {
        try
        {
            for (final String line : Files.readAllLines(STATUS))
            {
                if (line.startsWith("VmHWM:"))
                {
                    return Long.parseLong(line.substring("VmHWM:".length()).replace("kB", "").trim()) << 10;
                }
            }
        }
        catch (final IOException | NumberFormatException e)
        {
            return -1;
        }
        return -1;
    }
}
