package dev.spillway.ranks;

import com.fasterxml.jackson.databind.JsonNode;
import dev.spillway.io.CrashPoints;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code launch -n 2 --redundancy R run lu ...} over real UCX endpoints (design §D.5, takeover): a replica killed
 * with {@code kill -9} at a named point while its rank has another is taken over. The job exits 0 with the
 * unreplicated run's result checksum, nothing is relaunched (so nothing restores), and the launcher names the
 * takeover. The loss of a rank's only replica ends the job with an error naming the rank instead. Kills come from the replicas'
 * own {@code CRASHPOINT} lines. Slot 0 too: it hosts the rendezvous and is the first replica of rank 0, so its loss
 * leaves the result to slot 1 to report.
 */
@Tag("process")
class ReplicaTakeoverTest
{
    private static final Duration LIMIT = Duration.ofMinutes(10);
    private static final List<String> LU = List.of("run", "lu", "--n", "512", "--tile", "64", "--workers", "1",
        "--dram", "2m");
    private static String reference;
    /** Failure-free seconds by redundancy degree, each measured once. */
    private static final Map<String, Double> FAILURE_FREE = new HashMap<>();

    @TempDir
    static Path shared;
    @TempDir
    Path dir;

    @BeforeAll
    static void unreplicatedRun() throws Exception
    {
        RankChildSupport.requireUcx();
        final KilledLaunch plain = launch(shared.resolve("plain"), List.of());
        assertEquals(0, plain.exit(), plain.output());
        reference = plain.json().get("result_checksum").asText();
    }

    /** @return the failure-free run's seconds at {@code degree}, after checking its result. */
    private static double failureFree(final String degree) throws Exception
    {
        final Double known = FAILURE_FREE.get(degree);
        if (known != null)
        {
            return known;
        }
        final KilledLaunch launch = launch(shared.resolve("free-" + degree), List.of("--redundancy", degree));
        assertEquals(0, launch.exit(), launch.output());
        assertEquals(reference, launch.json().get("result_checksum").asText(), launch.output());
        FAILURE_FREE.put(degree, launch.json().get("time_s").asDouble());
        return launch.json().get("time_s").asDouble();
    }

    @ParameterizedTest
    @CsvSource({"2, 1:" + CrashPoints.TRANSFER_SEND + ":5", "2, 3:" + CrashPoints.BETWEEN_COPIES + ":4",
        "2, 2:" + CrashPoints.IN_TASK + ":30", "2, 0:" + CrashPoints.IN_TASK + ":30",
        "1.5, 1:" + CrashPoints.TRANSFER_SEND + ":3"})
    void aReplicaKilledAtANamedPointIsTakenOver(final String degree, final String spec) throws Exception
    {
        final KilledLaunch launch = launch(dir, List.of("--redundancy", degree, "--crash-at", spec));
        assertEquals(1, launch.killed().size(), "the armed crash point must be reached and killed: " + spec + "\n" +
            launch.output());
        assertEquals(0, launch.exit(), "the job must run on after the takeover:\n" + launch.output());
        assertEquals(reference, launch.json().get("result_checksum").asText(), "result after the loss of slot " +
            spec + "\n" + launch.output());
        assertTrue(launch.json().get("verified").asBoolean(), launch.json().toString());
        final String victim = spec.split(":")[0];
        assertTrue(launch.output().contains("slot " + victim + " (rank "), launch.output());
        assertTrue(launch.output().contains("(takeover: no restart)"), "the launcher names the takeover:\n" +
            launch.output());
        assertFalse(launch.output().contains("relaunching"), "nothing is relaunched, so nothing restores:\n" +
            launch.output());
        final double free = failureFree(degree);
        System.out.printf("ReplicaTakeoverTest: %sx, kill %s: %.2f s against %.2f s failure-free, ratio %.2f " +
            "(reported, not asserted)%n", degree, spec, launch.json().get("time_s").asDouble(), free,
            launch.json().get("time_s").asDouble() / free);
    }

    @Test
    void twoOfThreeReplicasKilledAreTakenOverByTheThird() throws Exception
    {
        // At 3x rank 0 runs on slots 0, 1 and 2: slot 1 dies in a send, slot 2 in a task; slot 0 runs on alone.
        final KilledLaunch launch = launch(dir, List.of("--redundancy", "3", "--crash-at",
            "1:" + CrashPoints.TRANSFER_SEND + ":5", "--crash-at", "2:" + CrashPoints.IN_TASK + ":30"));
        assertEquals(2, launch.killed().size(), "both crash points must be reached and killed:\n" + launch.output());
        assertEquals(0, launch.exit(), launch.output());
        assertEquals(reference, launch.json().get("result_checksum").asText(), launch.output());
        for (final int slot : List.of(1, 2))
        {
            assertTrue(launch.output().contains("slot " + slot + " (rank 0's replica) exited with status 137 " +
                "(killed by signal 9); replicas ["), "slot " + slot + ":\n" + launch.output());
        }
        assertTrue(launch.output().contains("replicas [0] run on (takeover: no restart), sdc_coverage now 0.50"),
            "slot 0 alone is left to rank 0, which SDC detection no longer covers:\n" + launch.output());
        assertFalse(launch.output().contains("relaunching"), launch.output());
    }

    @Test
    void everyReplicaComputesTheUnreplicatedResult() throws Exception
    {
        final KilledLaunch launch = launch(dir, List.of("--redundancy", "2"));
        assertEquals(0, launch.exit(), launch.output());
        assertEquals(reference, launch.json().get("result_checksum").asText(), launch.output());
        final JsonNode replication = launch.json().get("replication");
        assertTrue(replication.get("copies_compared").asLong() > 0, replication.toString());
        assertEquals(1.0, replication.get("sdc_coverage").asDouble(), replication.toString());
        for (int slot = 1; slot < 4; slot++)
        {
            assertTrue(launch.output().contains("[slot " + slot + "] spillway: rank " + slot / 2 + " replica " +
                slot % 2 + " (slot " + slot + "): copies sent"), "slot " + slot + " reports:\n" + launch.output());
        }
    }

    @Test
    void losingARanksOnlyReplicaEndsTheJobNamingTheRank() throws Exception
    {
        // At 1.5x over two ranks, rank 1 has one replica: slot 2.
        final KilledLaunch launch = launch(dir, List.of("--redundancy", "1.5", "--crash-at",
            "2:" + CrashPoints.IN_TASK + ":30"));
        assertEquals(1, launch.killed().size(), launch.output());
        assertNotEquals(0, launch.exit(), "the job cannot finish without rank 1:\n" + launch.output());
        assertTrue(launch.output().contains("rank 1 is lost") || launch.output().contains("rank 1 was lost") ||
            launch.output().contains("every replica of its sphere is lost"), "a survivor names rank 1's loss:\n" +
            launch.output());
        assertFalse(Files.exists(dir.resolve("out.json")), "no result after rank 1's loss:\n" + launch.output());
    }

    /** Runs {@code spillway launch -n 2 <args> <LU>}, killing every replica that reports a crash point. */
    private static KilledLaunch launch(final Path dir, final List<String> args) throws Exception
    {
        final List<String> all = new ArrayList<>(List.of("launch", "-n", "2"));
        all.addAll(args);
        all.addAll(LU);
        return KilledLaunch.run(dir, all, LIMIT);
    }
}
