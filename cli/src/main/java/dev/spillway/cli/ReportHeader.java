package dev.spillway.cli;

import dev.spillway.kernels.blas.Blas;
import dev.spillway.memory.ByteUnits;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

/** The header of {@code run --report}'s page: command line, date, version, machine, BLAS and the DRAM cap. */
final class ReportHeader
{
    private ReportHeader()
    {
    }

    /**
     * @param invocation the command line, its start and the version, as {@code --json} gives them.
     * @param blas       the BLAS in use.
     * @param cap        the DRAM budget, said as {@code run} says it (bytes and share of the data).
     */
    static Map<String, String> of(final Invocation invocation, final Blas.Choice blas, final String cap)
    {
        final Map<String, String> out = new LinkedHashMap<>();
        out.put("command", String.join(" ", invocation.command().stream().map(ReportHeader::quoted).toList()));
        out.put("date", invocation.startedAt().atZone(ZoneId.systemDefault())
            .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss xxx")));
        out.put("version", "spillway " + invocation.version() + ", JVM " + System.getProperty("java.version") +
            " (" + System.getProperty("java.vm.name") + ")");
        out.put("machine", Runtime.getRuntime().availableProcessors() + " cores, " + memory() + " memory, " +
            System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        out.put("BLAS", blas.note());
        out.put("DRAM cap", cap + "; " + (MemoryCgroup.insideLimitedCgroup() ? "inside a memory cgroup limited " +
            "below the machine's RAM" : "not inside a limited memory cgroup"));
        return out;
    }

    /** @return the machine's RAM ({@code /proc/meminfo}; inside a cgroup the JVM sees only the cgroup's limit). */
    private static String memory()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/meminfo")))
            {
                if (line.startsWith("MemTotal:"))
                {
                    return ByteUnits.format(Long.parseLong(line.replaceAll("\\D", "")) * 1024);
                }
            }
        }
        catch (final IOException | NumberFormatException e)
        {
            // not Linux: ask the JVM
        }
        final var os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ?
            ByteUnits.format(sun.getTotalMemorySize()) : "unknown";
    }

    /** @return {@code arg} as a shell would need it: single-quoted when it holds anything but plain characters. */
    static String quoted(final String arg)
    {
        return arg.matches("[\\w@%+=:,./-]+") ? arg : "'" + arg.replace("'", "'\\''") + "'";
    }
}
