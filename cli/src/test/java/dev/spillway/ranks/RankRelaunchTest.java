package dev.spillway.ranks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.io.CrashPoints;
import dev.spillway.rdma.TransportConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code launch -n 3 --max-restarts K run ... --checkpoint-dir D} survives a rank killed with {@code kill -9} at a
 * named point, at seeded random task counts (rank 0 among the victims), twice in a row, and during the restore:
 * every time the relaunched job's {@code result_checksum} equals the failure-free run's, and rank 0's JSON names
 * the lost rank and the global cut restored. Kills come from the ranks' own {@code CRASHPOINT} lines, never from
 * wall-clock guesses.
 */
@Tag("process")
class RankRelaunchTest
{
    private static final Duration LIMIT = Duration.ofMinutes(10);
    private static final List<String> LU = List.of("run", "lu", "--n", "512", "--tile", "64", "--workers", "1",
        "--dram", "2m", "--checkpoint-every", "30");
    private static final List<String> STENCIL = List.of("run", "stencil", "--grid", "64,64,64", "--tile", "16",
        "--sweeps", "3", "--steps", "3", "--workers", "1", "--dram", "1m", "--checkpoint-every", "25");
    private static final int RANDOM_KILLS = Integer.getInteger("spillway.test.randomKills", 20);
    /**
     * Ten times the bound on detection (the transport's failure timeout plus 1 s): a safety net for a loaded
     * machine, where a busy survivor's event thread sees the loss late (13.6 s measured under four CPU hogs). The
     * bound itself is a figure to read in the JSON's {@code recovery_s.detection}, not a timed assertion.
     */
    private static final double DETECTION_LIMIT_S = 10 * (TransportConfig.DEFAULT_FAILURE_TIMEOUT.toMillis() / 1e3 + 1);
    private static final Map<List<String>, JsonNode> REFERENCE = new HashMap<>();

    @TempDir
    static Path shared;
    @TempDir
    Path dir;

    @BeforeAll
    static void failureFreeRuns() throws Exception
    {
        RankChildSupport.requireUcx();
        for (final List<String> run : List.of(LU, STENCIL))
        {
            final JsonNode result = launch(shared.resolve(run.get(1)), run).json;
            assertTrue(result.get("verified").asBoolean(), result.toString());
            assertTrue(result.get("checkpoints").asInt() > 0, "the reference run committed no checkpoint: " + result);
            REFERENCE.put(run, result);
        }
    }

    static Stream<String> namedPoints()
    {
        return Stream.of("1:" + CrashPoints.TRANSFER_SEND + ":8", "2:" + CrashPoints.CAPTURE + ":3",
            "0:" + CrashPoints.BEFORE_MANIFEST + ":2", "1:" + CrashPoints.MANIFEST_RENAME + ":3",
            "0:" + CrashPoints.TRANSFER_SEND + ":5");
    }

    @ParameterizedTest
    @MethodSource("namedPoints")
    void survivesAKillAtANamedPoint(final String spec) throws Exception
    {
        relaunchedEqualsReference(LU, spec);
    }

    @Test
    void survivesAKillDuringTheRestore() throws Exception
    {
        final JsonNode recovery = relaunchedEqualsReference(LU, "2:" + CrashPoints.IN_TASK + ":40",
            "1:" + CrashPoints.RESTORE + ":1@1");
        assertTrue(recovery.get("restored_global_index").isNumber(), "a restore was killed, so one ran: " + recovery);
    }

    @Test
    void survivesTwoKillsInARow() throws Exception
    {
        final JsonNode recovery = relaunchedEqualsReference(LU, "1:" + CrashPoints.IN_TASK + ":30",
            "0:" + CrashPoints.IN_TASK + ":60@1");
        assertTrue(recovery.get("restored_global_index").isNumber(), "rank 0's 60th task comes after a global " +
            "checkpoint, which the second relaunch restores: " + recovery);
    }

    /**
     * Cuts agreed at run time lie at the ranks' admission fronts, behind what they submitted (LU submits its whole
     * graph at once): rank 1 killed as it renames the manifest of its second such cut resumes, with the others, from
     * the first, whose program hash was taken behind the submission front; the result equals a failure-free run's.
     */
    @Test
    void survivesAKillWithCutsAgreedAtRunTime() throws Exception
    {
        // Long enough for rounds every 0.3 s to begin after LU submitted its whole graph.
        final List<String> run = List.of("run", "lu", "--n", "1024", "--tile", "64", "--workers", "1", "--dram", "4m",
            "--checkpoint-every", "0.3s");
        final Launch launch = launch(dir, List.of("--max-restarts", "2", "--crash-at",
            "1:" + CrashPoints.MANIFEST_RENAME + ":2"), run);
        assertEquals(1, launch.killed.size(), launch.child.output());
        final JsonNode expected = launch(dir.resolve("reference"), List.of(), run).json;
        assertEquals(expected.get("result_checksum").asText(), launch.json.get("result_checksum").asText(),
            "the relaunched job's result differs from the failure-free run's\n" + launch.child.output());
        assertTrue(launch.json.get("recovery").get("restored_global_index").isNumber(), "rank 1 began its second cut " +
            "once the first was globally committed, so one is restored: " + launch.json.get("recovery") + "\n" +
            launch.child.output());
    }

    @ParameterizedTest
    @ValueSource(strings = {"1:" + CrashPoints.TRANSFER_SEND + ":6", "0:" + CrashPoints.IN_TASK + ":50"})
    void stencilSurvivesAKill(final String spec) throws Exception
    {
        relaunchedEqualsReference(STENCIL, spec);
    }

    /** Seed s kills rank s % 3 (rank 0 in a third of them) at a random one of its tasks. */
    static IntStream seeds()
    {
        return IntStream.range(0, RANDOM_KILLS);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void survivesAKillAtASeededRandomTask(final int seed) throws Exception
    {
        final int victim = seed % 3;
        final long tasks = REFERENCE.get(LU).get("per_rank").get(victim).get("tasks").asLong();
        final long hit = 1 + new Random(seed).nextLong(tasks);
        relaunchedEqualsReference(LU, victim + ":" + CrashPoints.IN_TASK + ":" + hit);
    }

    /** @return rank 0's {@code recovery} object, checked against the failure-free run and the kills. */
    private JsonNode relaunchedEqualsReference(final List<String> run, final String... specs) throws Exception
    {
        final List<String> args = new ArrayList<>(List.of("--max-restarts", Integer.toString(specs.length + 1)));
        for (final String spec : specs)
        {
            args.addAll(List.of("--crash-at", spec));
        }
        args.addAll(run);
        final Launch launch = launch(dir, args);
        assertEquals(specs.length, launch.killed.size(), "every armed crash point must be reached and killed: " +
            List.of(specs) + ", killed " + launch.killed + "\n" + launch.child.output());
        final JsonNode expected = REFERENCE.get(run);
        assertEquals(expected.get("result_checksum").asText(), launch.json.get("result_checksum").asText(),
            "the relaunched job's result differs from the failure-free run's\n" + launch.child.output());
        assertTrue(launch.json.get("verified").asBoolean(), launch.json.toString());
        final JsonNode recovery = launch.json.get("recovery");
        assertEquals(specs.length, recovery.get("incarnation").asInt(), "one relaunch per kill: " + recovery + "\n" +
            launch.child.output());
        final int lastVictim = Integer.parseInt(specs[specs.length - 1].split(":")[0]);
        assertEquals(List.of(lastVictim), ints(recovery.get("lost_ranks")), recovery + "\n" + launch.child.output());
        for (final String part : List.of("detection", "relaunch", "restore"))
        {
            assertTrue(recovery.get("recovery_s").get(part).isNumber(), part + " was not measured: " + recovery);
        }
        assertEquals(recovery.get("restored_global_index").isNumber(),
            recovery.get("recovery_s").get("reexecution").isNumber(),
            "re-execution is measured exactly when a global checkpoint was restored: " + recovery);
        assertTrue(recovery.get("recovery_s").get("detection").asDouble() <= DETECTION_LIMIT_S,
            "a SIGKILL closes the victim's connections, so survivors see it at once (safety net " + DETECTION_LIMIT_S +
                " s): " + recovery);
        assertEquals(recovery.get("restored_global_index").isNumber(), launch.json.get("restored_generation")
            .asLong() >= 0, "rank 0 restored a generation exactly when the job had a global checkpoint: " +
            launch.json);
        assertFalse(launch.child.stderr().contains("spillway launch: killing rank"),
            "every survivor stopped by itself, none had to be killed:\n" + launch.child.output());
        assertFalse(Files.exists(dir.resolve("ckpt").resolve(GlobalCheckpoints.RECORD)),
            "a completed job leaves no global commit record");
        return recovery;
    }

    private static List<Integer> ints(final JsonNode array)
    {
        final List<Integer> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asInt()));
        return out;
    }

    /** Runs {@code spillway launch -n 3 <args> --checkpoint-dir ...}, killing every rank that reports a crash point. */
    private static Launch launch(final Path dir, final List<String> args) throws Exception
    {
        return launch(dir, args, List.of());
    }

    /** Runs {@code launch -n 3 args run...}. */
    private static Launch launch(final Path dir, final List<String> args, final List<String> run) throws Exception
    {
        Files.createDirectories(dir);
        final List<String> all = new ArrayList<>(List.of("launch", "-n", "3"));
        all.addAll(args);
        all.addAll(run);
        all.addAll(List.of("--checkpoint-dir", dir.resolve("ckpt").toString(), "--dir", dir.resolve("spill").toString(),
            "--json", dir.resolve("out.json").toString()));
        final RankChild child = RankChild.cli("launch", all).start(dir);
        try
        {
            final Set<Long> killed = child.killAtCrashPoints(LIMIT);
            assertEquals(0, child.await(LIMIT), "launch " + all + " failed:\n" + child.output());
            return new Launch(child, new ObjectMapper().readTree(dir.resolve("out.json").toFile()), killed);
        }
        finally
        {
            child.destroy();
        }
    }

    private record Launch(RankChild child, JsonNode json, Set<Long> killed)
    {
    }
}
