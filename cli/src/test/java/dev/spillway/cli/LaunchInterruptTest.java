package dev.spillway.cli;

import dev.spillway.ranks.RankChildSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * SIGTERM to {@code spillway launch -n 2 run lu ...} once both ranks show progress: the launcher passes it on, waits
 * for its ranks and exits 143; no rank outlives it, and the ranks' spill files are gone.
 */
@Tag("process")
@Timeout(600)
class LaunchInterruptTest
{
    @TempDir
    Path work;

    @Test
    void sigtermStopsEveryRankBeforeTheLauncherExits() throws Exception
    {
        RankChildSupport.requireUcx();
        final Path spill = work.resolve("spill");
        final CliChild launch = CliChild.start(work, "launch", List.of("launch", "-n", "2", "run", "lu", "--n", "4096",
            "--tile", "256", "--dram", "25%", "--workers", "1", "--dir", spill.toString()));
        List<ProcessHandle> ranks = List.of();
        try
        {
            launch.awaitLine("^\\[rank 0\\] spillway: rank 0 lu compute \\d+ tasks done");
            launch.awaitLine("^\\[rank 1\\] spillway: rank 1 lu compute \\d+ tasks done");
            ranks = launch.handle().children().toList();
            assertEquals(2, ranks.size(), "the launcher's children: " + ranks);
            launch.signal("TERM");
            assertEquals(143, launch.awaitExit(), launch::output);
            for (final ProcessHandle rank : ranks)
            {
                assertFalse(rank.isAlive(), "rank pid " + rank.pid() + " outlived the launcher:\n" + launch.output());
            }
            InterruptTest.assertInterruptedOnce(launch.output());
            try (Stream<Path> left = Files.exists(spill) ? Files.walk(spill) : Stream.empty())
            {
                final List<Path> files = left.filter(Files::isRegularFile).toList();
                assertEquals(List.of(), files, "the ranks' spill files are left");
            }
        }
        finally
        {
            launch.destroy();
            ranks.forEach(ProcessHandle::destroyForcibly);
        }
    }
}
