package dev.spillway.ranks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A {@code spillway launch} run to its end in a child JVM, every process that reports a crash point killed with
 * SIGKILL at once; rank 0's figures are read from {@code dir/out.json}.
 *
 * @param exit   the launcher's exit status.
 * @param json   rank 0's figures, or null when it wrote none.
 * @param killed the pids killed.
 * @param output the launcher's standard output and error.
 */
record KilledLaunch(int exit, JsonNode json, Set<Long> killed, String output)
{
    /**
     * Runs {@code spillway <launch> --dir dir/spill --json dir/out.json}.
     *
     * @param launch the launch command and the ranks' command, without {@code --dir} and {@code --json}.
     */
    static KilledLaunch run(final Path dir, final List<String> launch, final Duration limit) throws Exception
    {
        Files.createDirectories(dir);
        final List<String> all = new ArrayList<>(launch);
        all.addAll(List.of("--dir", dir.resolve("spill").toString(), "--json", dir.resolve("out.json").toString()));
        final RankChild child = RankChild.cli("launch", all).start(dir);
        try
        {
            final Set<Long> killed = child.killAtCrashPoints(limit);
            final int exit = child.await(limit);
            final Path json = dir.resolve("out.json");
            return new KilledLaunch(exit, Files.exists(json) ? new ObjectMapper().readTree(json.toFile()) : null,
                killed, child.output());
        }
        finally
        {
            child.destroy();
        }
    }
}
