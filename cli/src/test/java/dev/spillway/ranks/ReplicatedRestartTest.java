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

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code launch -n 2 --redundancy 2 --max-restarts 1 run lu --checkpoint-dir ...} over real UCX endpoints (design
 * §D.5): what replication cannot take over restarts the job from the newest cut every sphere verified, with the
 * unreplicated run's result checksum. The death of a whole sphere (two {@code kill -9}, the first replica long before
 * the second, so its directory lacks the newer cuts and it copies them from its partner) and one bit flipped in what a
 * task wrote on one replica (caught when the sphere compares its next cut) both do. A replica killed during a cut or
 * during its sphere's digest exchange is taken over like any other.
 */
@Tag("process")
class ReplicatedRestartTest
{
    private static final Duration LIMIT = Duration.ofMinutes(10);
    private static final List<String> LU = List.of("run", "lu", "--n", "512", "--tile", "64", "--workers", "1",
        "--dram", "2m");
    private static String reference;

    @TempDir
    static Path shared;
    @TempDir
    Path dir;

    @BeforeAll
    static void unreplicatedRun() throws Exception
    {
        RankChildSupport.requireUcx();
        final Launch plain = launch(shared.resolve("plain"), List.of(), false);
        assertEquals(0, plain.exit, plain.output);
        reference = plain.json.get("result_checksum").asText();
    }

    @Test
    void theDeathOfAWholeSphereRestartsTheJobAndAReplicaTakenOverEarlierCopiesItsPartnersCut() throws Exception
    {
        // Rank 1 runs on slots 2 and 3: slot 3 dies at its 10th task (a takeover), slot 2 at its 120th.
        final Launch launch = launch(dir, List.of("--crash-at", "3:" + CrashPoints.IN_TASK + ":10", "--crash-at",
            "2:" + CrashPoints.IN_TASK + ":120"), true);
        assertEquals(2, launch.killed.size(), "both crash points must be reached and killed:\n" + launch.output);
        assertEquals(0, launch.exit, launch.output);
        assertEquals(reference, launch.json.get("result_checksum").asText(), launch.output);
        assertTrue(launch.output.contains("slot 3 (rank 1's replica) exited with status 137 (killed by signal 9); " +
            "replicas [2] run on (takeover: no restart)"), launch.output);
        assertTrue(launch.output.contains("every replica of its sphere is lost"), launch.output);
        assertTrue(launch.output.contains("relaunching all 4 processes as incarnation 1"), launch.output);
        assertTrue(launch.output.contains("rank 1 replica 1 (slot 3) lacks the global cut at index") &&
            launch.output.contains("every block verified"), "slot 3 copies the cut from slot 2:\n" + launch.output);
        assertTrue(launch.output.contains("incarnation 1, resumed from the cut at global index"), launch.output);
    }

    @ParameterizedTest
    @ValueSource(strings = {CrashPoints.CAPTURE + ":3", CrashPoints.DIGEST_EXCHANGE + ":2"})
    void aReplicaKilledDuringACutOrTheDigestExchangeIsTakenOver(final String point) throws Exception
    {
        final Launch launch = launch(dir, List.of("--crash-at", "3:" + point), true);
        assertEquals(1, launch.killed.size(), "the armed crash point must be reached and killed:\n" + launch.output);
        assertEquals(0, launch.exit, launch.output);
        assertEquals(reference, launch.json.get("result_checksum").asText(), launch.output);
        assertTrue(launch.output.contains("slot 3 (rank 1's replica) exited with status 137 (killed by signal 9); " +
            "replicas [2] run on (takeover: no restart)"), launch.output);
        assertFalse(launch.output.contains("relaunching"), "a takeover restarts nothing:\n" + launch.output);
    }

    @Test
    void aBitFlippedOnOneReplicaIsCaughtAtTheNextCutAndTheJobRollsBack() throws Exception
    {
        final Launch launch = launch(dir, List.of("--flip-at", "3:100"), true);
        assertEquals(0, launch.exit, launch.output);
        assertTrue(launch.output.contains("[slot 3] BITFLIP task '"), "the flip must happen:\n" + launch.output);
        assertEquals(reference, launch.json.get("result_checksum").asText(), "the result after the roll-back:\n" +
            launch.output);
        assertTrue(launch.output.contains("silent data corruption detected"), launch.output);
        assertTrue(launch.output.contains("relaunching all 4 processes as incarnation 1"), launch.output);
    }

    /** Runs {@code spillway launch -n 2 <args> <LU>}, killing every replica that reports a crash point. */
    private static Launch launch(final Path dir, final List<String> args, final boolean replicated) throws Exception
    {
        Files.createDirectories(dir);
        final List<String> all = new ArrayList<>(List.of("launch", "-n", "2"));
        if (replicated)
        {
            all.addAll(List.of("--redundancy", "2", "--max-restarts", "1"));
        }
        all.addAll(args);
        all.addAll(LU);
        if (replicated)
        {
            all.addAll(List.of("--checkpoint-dir", dir.resolve("ck").toString(), "--checkpoint-every", "40"));
        }
        all.addAll(List.of("--dir", dir.resolve("spill").toString(), "--json", dir.resolve("out.json").toString()));
        final RankChild child = RankChild.cli("launch", all).start(dir);
        try
        {
            final Set<Long> killed = child.killAtCrashPoints(LIMIT);
            final int exit = child.await(LIMIT);
            final Path json = dir.resolve("out.json");
            return new Launch(exit, Files.exists(json) ? new ObjectMapper().readTree(json.toFile()) : null, killed,
                child.output());
        }
        finally
        {
            child.destroy();
        }
    }

    private record Launch(int exit, JsonNode json, Set<Long> killed, String output)
    {
    }
}
