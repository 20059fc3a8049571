package dev.spillway.ranks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.io.CrashPoints;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code launch -n 4 --max-restarts K run … --p2f --clusters 2}: a rank of cluster 1 (ranks 2 and 3) killed with
 * {@code kill -9} at a named point is started again alone, its cluster partner stops and starts again with it, and
 * ranks 0 and 1 run on in their first process, sending again what the restarted ranks lost; a rank of cluster 0 killed
 * rolls every rank back, and the launcher relaunches the job. Every result equals the failure-free run's. Kills come
 * from the ranks' own {@code CRASHPOINT} lines.
 */
@Tag("process")
class P2fRelaunchTest
{
    private static final Duration LIMIT = Duration.ofMinutes(10);
    private static final Pattern STARTED = Pattern.compile("spillway launch: rank (\\d) pid (\\d+) incarnation");
    private static final List<String> LU = List.of("run", "lu", "--n", "512", "--tile", "64", "--workers", "1",
        "--dram", "4m", "--checkpoint-every", "40", "--p2f", "--clusters", "2");
    private static String reference;

    @TempDir
    static Path shared;
    @TempDir
    Path dir;

    @BeforeAll
    static void failureFree() throws Exception
    {
        RankChildSupport.requireUcx();
        final JsonNode plain = launch(shared.resolve("plain"), List.of()).json;
        assertTrue(plain.get("verified").asBoolean(), plain.toString());
        reference = plain.get("result_checksum").asText();
    }

    /** Kills in cluster 1, early and late, in a task and while sending. */
    @ParameterizedTest
    @ValueSource(strings = {"3:" + CrashPoints.IN_TASK + ":40", "3:" + CrashPoints.IN_TASK + ":70",
        "2:" + CrashPoints.TRANSFER_SEND + ":12"})
    void onlyTheLostRanksClusterStartsAgain(final String spec) throws Exception
    {
        final Launch launch = launch(dir, List.of("--crash-at", spec));
        assertEquals(reference, launch.json.get("result_checksum").asText(), "the result after the recovery\n" +
            launch.output);
        assertEquals(List.of(1, 1, 2, 2), launch.processesPerRank(), "ranks 0 and 1 run on in one process each; " +
            "ranks 2 and 3 start again once each\n" + launch.output);
        assertTrue(launch.output.contains("relaunching it alone"), launch.output);
        final JsonNode p2f = launch.json.get("p2f");
        assertTrue(p2f.get("logged").asLong() > 0, p2f.toString());
    }

    /** Rank 1 is in the lowest cluster: every rank depends on it, so the job starts again whole. */
    @Test
    void aLossInTheLowestClusterRestartsTheJob() throws Exception
    {
        final Launch launch = launch(dir, List.of("--crash-at", "1:" + CrashPoints.IN_TASK + ":40"));
        assertEquals(reference, launch.json.get("result_checksum").asText(), launch.output);
        assertTrue(launch.output.contains("relaunching all 4 ranks"), launch.output);
    }

    /** Runs {@code launch -n 4 <launch> LU…}, killing every rank that reports a crash point. */
    private static Launch launch(final Path dir, final List<String> launchArgs) throws Exception
    {
        Files.createDirectories(dir);
        final List<String> all = new ArrayList<>(List.of("launch", "-n", "4", "--max-restarts", "6"));
        all.addAll(launchArgs);
        all.addAll(LU);
        all.addAll(List.of("--checkpoint-dir", dir.resolve("ckpt").toString(), "--dir", dir.resolve("spill").toString(),
            "--json", dir.resolve("out.json").toString()));
        final RankChild child = RankChild.cli("launch", all).start(dir);
        try
        {
            final Set<Long> killed = child.killAtCrashPoints(LIMIT);
            assertEquals(0, child.await(LIMIT), "launch " + all + " failed:\n" + child.output());
            assertEquals(launchArgs.isEmpty() ? 0 : 1, killed.size(), "the armed crash point must be reached and " +
                "killed\n" + child.output());
            return new Launch(child.output(), new ObjectMapper().readTree(dir.resolve("out.json").toFile()));
        }
        finally
        {
            child.destroy();
        }
    }

    private record Launch(String output, JsonNode json)
    {
        /** @return how many processes the launcher started for each rank. */
        List<Integer> processesPerRank() throws IOException
        {
            final int[] n = new int[4];
            final Matcher m = STARTED.matcher(output);
            while (m.find())
            {
                n[Integer.parseInt(m.group(1))]++;
            }
            return List.of(n[0], n[1], n[2], n[3]);
        }
    }
}
