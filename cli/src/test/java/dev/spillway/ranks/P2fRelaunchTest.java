package dev.spillway.ranks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.io.CrashPoints;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code launch -n 4 --max-restarts K run … --p2f --clusters 2}: a rank of cluster 1 (ranks 2 and 3) killed with
 * {@code kill -9} at a named point is started again alone; rank 0's recovery line names its cluster partner, which
 * stops and starts again to the named cut, and ranks 0 and 1 run on in their first process, sending again what the
 * restarted ranks lost. A rank of cluster 0 killed rolls rank 0 back, and the launcher relaunches the job. Every
 * result equals the failure-free run's. Kills come from the ranks' own {@code CRASHPOINT} lines.
 */
@Tag("process")
class P2fRelaunchTest
{
    private static final Duration LIMIT = Duration.ofMinutes(10);
    private static final Pattern STARTED = Pattern.compile("spillway launch: rank (\\d) pid (\\d+) incarnation");
    private static final List<String> LU = List.of("run", "lu", "--n", "512", "--tile", "64", "--workers", "1",
        "--checkpoint-every", "40", "--p2f");
    /** Each rank's data is 512 KiB: 4 MiB holds all of it, 50 % spills. */
    private static final String IN_CORE = "4m";
    private static final String SPILLING = "50%";
    /** Seeded random kills: 20 in CI, {@code -Dspillway.test.p2fRandomKills=N} for more. */
    private static final int RANDOM_KILLS = Integer.getInteger("spillway.test.p2fRandomKills", 20);
    private static String reference;
    private static JsonNode plain;

    @TempDir
    static Path shared;
    @TempDir
    Path dir;

    @BeforeAll
    static void failureFree() throws Exception
    {
        RankChildSupport.requireUcx();
        plain = launch(shared.resolve("plain"), List.of(), 2).json;
        assertTrue(plain.get("verified").asBoolean(), plain.toString());
        reference = plain.get("result_checksum").asText();
    }

    /** Kills in cluster 1, early and late, in a task and while sending. */
    @ParameterizedTest
    @ValueSource(strings = {"3:" + CrashPoints.IN_TASK + ":40", "3:" + CrashPoints.IN_TASK + ":70",
        "2:" + CrashPoints.TRANSFER_SEND + ":12"})
    void onlyTheLostRanksClusterStartsAgain(final String spec) throws Exception
    {
        final Launch launch = launch(dir, List.of("--crash-at", spec), 2);
        assertEquals(reference, launch.json.get("result_checksum").asText(), "the result after the recovery\n" +
            launch.output);
        assertEquals(List.of(1, 1, 2, 2), launch.processesPerRank(), "ranks 0 and 1 run on in one process each; " +
            "ranks 2 and 3 start again once each\n" + launch.output);
        assertTrue(launch.output.contains("relaunching it alone"), launch.output);
        final JsonNode p2f = launch.json.get("p2f");
        assertTrue(p2f.get("logged").asLong() > 0, p2f.toString());
    }

    /**
     * Over {@code launch --transport shm}, UCX without peer error handling: rank 2 killed while it sends is found lost
     * by heartbeats alone, and the survivors' transfers to and from it end without UCX reporting anything.
     */
    @Test
    void overSharedMemoryOnlyTheLostRanksClusterStartsAgain() throws Exception
    {
        final Launch launch = launch(dir, List.of("--transport", "shm", "--crash-at",
            "2:" + CrashPoints.TRANSFER_SEND + ":12"), 2);
        assertTrue(launch.output.contains("ranks over UCX without peer error handling"), launch.output);
        assertEquals(reference, launch.json.get("result_checksum").asText(), "the result after the recovery\n" +
            launch.output);
        assertEquals(List.of(1, 1, 2, 2), launch.processesPerRank(), "ranks 0 and 1 run on in one process each; " +
            "ranks 2 and 3 start again once each\n" + launch.output);
    }

    /**
     * Four clusters of one rank: rank 0's recovery line sends back the lost rank 1 and whichever ranks above it sent
     * it, unlogged, what it must take again (the fixpoint, which the offline oracle recomputes from the trace); rank 0
     * runs on, and only the ranks the line names start again.
     */
    @Test
    void theRecoveryLineNamesTheRanksToRollBack() throws Exception
    {
        final Launch launch = launch(dir, List.of("--crash-at", "1:" + CrashPoints.IN_TASK + ":40"), 4);
        assertEquals(reference, launch.json.get("result_checksum").asText(), launch.output);
        final JsonNode session = launch.json.get("recovery_sessions").get(0);
        assertEquals("[1]", session.get("lost").toString(), session.toString());
        assertTrue(session.get("runs_on").toString().startsWith("[0"), session.toString());
        final List<Integer> processes = launch.processesPerRank();
        for (int r = 0; r < 4; r++)
        {
            assertEquals(session.get("rolled_back_to").has(Integer.toString(r)), processes.get(r) > 1,
                "rank " + r + " starts again iff the line names it: " + session + "\n" + launch.output);
        }
        assertTrue(launch.output.contains("recovery session 1: the recovery line rolls back rank 1 to the cut at " +
            "global index"), launch.output);
        // Rank 0, in the lowest cluster, logged what it sent above it: the ranks sent back need some of it again.
        final JsonNode p2f = launch.json.get("p2f");
        assertTrue(p2f.get("replayed_from_logs").asLong() > 0, p2f.toString());
        final JsonNode perRank = launch.json.get("per_rank");
        assertTrue(perRank.get(0).get("p2f").get("replayed_from_logs").asLong() > 0, perRank.toString());
        assertEquals(0, perRank.get(0).get("incarnation").asInt(), perRank.toString());
        assertFalse(perRank.get(0).get("rolled_back").asBoolean(), perRank.toString());
        assertEquals(-1, perRank.get(0).get("p2f").get("restored_epoch").asInt(), perRank.toString());
        assertEquals(0, perRank.get(0).get("reexecuted_tasks").asLong(), "rank 0 ran on\n" + perRank);
        // Each rank the line sent back resumed from the very cut the line named.
        for (int r = 1; r < 4; r++)
        {
            final JsonNode cut = session.get("rolled_back_to").get(Integer.toString(r));
            if (cut == null)
            {
                continue;
            }
            final JsonNode rank = perRank.get(r);
            assertEquals(cut.isNumber() ? cut.asLong() : -1, rank.get("restored_index").asLong(),
                "rank " + r + ": " + session + "\n" + perRank);
            assertTrue(rank.get("incarnation").asInt() > 0 && rank.get("rolled_back").asBoolean(), perRank.toString());
            assertEquals(cut.isNumber(), rank.get("p2f").get("restored_epoch").asInt() >= 0, perRank.toString());
        }
        assertTrue(p2f.get("reexecuted_sends").asLong() > 0, "the ranks sent back sent nothing again: " + perRank);
    }

    /**
     * Four clusters with half of each rank's data in DRAM, so tiles spill and restored ones are read lazily: a kill
     * of rank 1, 2 or 3 rolls back what the line names (the oracle's), rank 0 runs on, and the result is the
     * in-core failure-free run's.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void underSpillingTheRecoveryGivesTheSameResult(final int victim) throws Exception
    {
        final Launch launch = launch(dir, List.of("--crash-at", victim + ":" + CrashPoints.IN_TASK + ":40"), 4,
            Set.of(), SPILLING);
        assertEquals(reference, launch.json.get("result_checksum").asText(), "kill of rank " + victim + "\n" +
            launch.output);
        assertEquals(1, launch.processesPerRank().get(0), "rank 0 runs on\n" + launch.output);
        for (final JsonNode rank : launch.json.get("per_rank"))
        {
            assertTrue(rank.get("stats").get("nvme_bytes_written").asLong() > 0, "rank " + rank.get("rank") +
                " spilled nothing: " + rank);
        }
    }

    /**
     * Two losses: rank 3 killed twice, the second time while its relaunch re-executes (a loss during a recovery).
     * Each loss opens a recovery session of its own; cluster 0 runs on.
     */
    @Test
    void aLossDuringRecoveryRollsBackOnlyTheUpperCluster() throws Exception
    {
        final Launch launch = launch(dir, List.of("--crash-at", "3:" + CrashPoints.IN_TASK + ":40", "--crash-at",
            "3:" + CrashPoints.IN_TASK + ":5@1"), 2, Set.of());
        assertEquals(reference, launch.json.get("result_checksum").asText(), launch.output);
        assertEquals(List.of(1, 1), launch.processesPerRank().subList(0, 2), launch.output);
        assertEquals(2, launch.killed, "rank 3's relaunch must be killed too\n" + launch.output);
    }

    /** Two concurrent losses: rank 2 killed at its task 40 and rank 3 at the same moment; cluster 0 runs on. */
    @Test
    void twoConcurrentLossesRollBackOnlyTheUpperCluster() throws Exception
    {
        final Launch launch = launch(dir, List.of("--crash-at", "2:" + CrashPoints.IN_TASK + ":40"), 2, Set.of(3));
        assertEquals(reference, launch.json.get("result_checksum").asText(), launch.output);
        assertEquals(2, launch.killed, "ranks 2 and 3 must both be killed\n" + launch.output);
        final List<Integer> processes = launch.processesPerRank();
        assertEquals(List.of(1, 1), processes.subList(0, 2), launch.output);
        assertTrue(processes.get(2) >= 2 && processes.get(3) >= 2, "ranks 2 and 3 start again: " + processes + "\n" +
            launch.output);
    }

    /** Seed s kills rank s % 4 (ranks 0 and 1 are cluster 0: the job starts again whole) at a random task. */
    static IntStream seeds()
    {
        return IntStream.range(0, RANDOM_KILLS);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void survivesAKillAtASeededRandomTask(final int seed) throws Exception
    {
        final int victim = seed % 4;
        final long tasks = plain.get("per_rank").get(victim).get("tasks").asLong();
        final long hit = 1 + new Random(seed).nextLong(tasks);
        final Launch launch = launch(dir, List.of("--crash-at", victim + ":" + CrashPoints.IN_TASK + ":" + hit), 2);
        assertEquals(reference, launch.json.get("result_checksum").asText(), "kill of rank " + victim + " at its " +
            "task " + hit + " of " + tasks + "\n" + launch.output);
        if (victim >= 2)
        {
            assertEquals(List.of(1, 1), launch.processesPerRank().subList(0, 2), "cluster 0 runs on when rank " +
                victim + " is killed at its task " + hit + "\n" + launch.output);
        }
    }

    /** Rank 1 is in the lowest cluster: every rank depends on it, so the job starts again whole. */
    @Test
    void aLossInTheLowestClusterRestartsTheJob() throws Exception
    {
        final Launch launch = launch(dir, List.of("--crash-at", "1:" + CrashPoints.IN_TASK + ":40"), 2);
        assertEquals(reference, launch.json.get("result_checksum").asText(), launch.output);
        assertTrue(launch.output.contains("relaunching all 4 ranks"), launch.output);
    }

    /**
     * A zombie: rank 3 paused with SIGSTOP once it reports progress, until rank 0 declares it lost, then continued.
     * The continued process must find itself fenced and stop, so that the launcher starts it again; ranks 0 and 1 run
     * on, and the result equals the failure-free run's.
     */
    @Test
    void aPausedRankDeclaredLostStopsWhenContinuedAndIsStartedAgain() throws Exception
    {
        final Path dir = this.dir.resolve("zombie");
        Files.createDirectories(dir);
        final List<String> all = new ArrayList<>(List.of("launch", "-n", "4", "--max-restarts", "6"));
        all.addAll(LU);
        all.addAll(List.of("--dram", IN_CORE, "--clusters", "2", "--checkpoint-dir", dir.resolve("ckpt").toString(),
            "--dir", dir.resolve("spill").toString(), "--json", dir.resolve("out.json").toString()));
        final RankChild child = RankChild.cli("launch", all).start(dir);
        try
        {
            child.awaitStderr("[rank 3] spillway: rank 3 lu compute", LIMIT);
            final long zombie = RankChild.lastPids(child.stderr(), Set.of(3)).get(0);
            RankChild.signal(zombie, "STOP");
            try
            {
                child.awaitStderr("[rank 0] spillway: rank 0: rank 3 is lost", LIMIT);
            }
            finally
            {
                RankChild.signal(zombie, "CONT");
            }
            assertEquals(0, child.await(LIMIT), "launch " + all + " failed:\n" + child.output());
            final String output = child.output();
            final JsonNode json = new ObjectMapper().readTree(dir.resolve("out.json").toFile());
            assertEquals(reference, json.get("result_checksum").asText(), output);
            final Launch launch = new Launch(output, json, 0);
            assertEquals(List.of(1, 1), launch.processesPerRank().subList(0, 2), "ranks 0 and 1 run on\n" + output);
            assertTrue(launch.processesPerRank().get(3) >= 2, "rank 3 is started again\n" + output);
            assertTrue(ProcessHandle.of(zombie).isEmpty() || !ProcessHandle.of(zombie).get().isAlive(),
                "the zombie " + zombie + " still runs\n" + output);
            // The control plane tells it; should UCX report rank 0's closed endpoint first, the stop names that.
            assertTrue(output.contains("[rank 3] spillway-rdma: rank 0 declared this rank's incarnation 0 lost (no " +
                "heartbeat for"), "the zombie learns why it must stop\n" + output);
            output.lines().filter(l -> l.startsWith("spillway launch: rank 3") || l.startsWith("[rank 3] spillway"))
                .forEach(l -> System.out.println("P2fRelaunchTest zombie " + zombie + ": " + l));
        }
        finally
        {
            child.destroy();
        }
    }

    /** Runs {@code launch -n 4 <launch> LU… --clusters <clusters>}, killing every rank that reports a crash point. */
    private static Launch launch(final Path dir, final List<String> launchArgs, final int clusters) throws Exception
    {
        return launch(dir, launchArgs, clusters, Set.of());
    }

    /** As {@link #launch(Path, List, int)}, also killing {@code alsoRanks} at the first crash point. */
    private static Launch launch(final Path dir, final List<String> launchArgs, final int clusters,
        final Set<Integer> alsoRanks) throws Exception
    {
        return launch(dir, launchArgs, clusters, alsoRanks, IN_CORE);
    }

    /** As {@link #launch(Path, List, int, Set)}, with {@code --dram dram} per rank. */
    private static Launch launch(final Path dir, final List<String> launchArgs, final int clusters,
        final Set<Integer> alsoRanks, final String dram) throws Exception
    {
        Files.createDirectories(dir);
        final List<String> all = new ArrayList<>(List.of("launch", "-n", "4", "--max-restarts", "6"));
        all.addAll(launchArgs);
        all.addAll(LU);
        all.addAll(List.of("--dram", dram));
        all.addAll(List.of("--clusters", Integer.toString(clusters)));
        all.addAll(List.of("--checkpoint-dir", dir.resolve("ckpt").toString(), "--dir", dir.resolve("spill").toString(),
            "--json", dir.resolve("out.json").toString(), "--trace-p2f", dir.resolve("trace").toString()));
        final RankChild child = RankChild.cli("launch", all).start(dir);
        try
        {
            final Set<Long> killed = child.killAtCrashPoints(LIMIT, alsoRanks);
            assertEquals(0, child.await(LIMIT), "launch " + all + " failed:\n" + child.output());
            final long armed = launchArgs.stream().filter("--crash-at"::equals).count();
            assertTrue(armed == 0 ? killed.isEmpty() : !killed.isEmpty() && killed.size() <= armed + alsoRanks.size(),
                "an armed crash point must be reached and killed (" + killed.size() + " of " + armed + " and ranks " +
                alsoRanks + ")\n" + child.output());
            final JsonNode json = new ObjectMapper().readTree(dir.resolve("out.json").toFile());
            assertLinesAreTheOracles(dir.resolve("trace"), clusters, json, child.output());
            assertReexecutedSends(dir.resolve("trace"), json, child.output());
            return new Launch(child.output(), json, killed.size());
        }
        finally
        {
            child.destroy();
        }
    }

    /**
     * Every recovery session whose reports came from ranks' first incarnations: its line equals the one the offline
     * oracle recomputes from the trace alone. With a single loss that is every session; at least one is checked
     * whenever the job was not restarted whole (rank 0's sessions are then those of a later job, whose ranks
     * restored state the traces do not hold).
     */
    private static void assertLinesAreTheOracles(final Path traces, final int clusters, final JsonNode json,
        final String output) throws IOException
    {
        final JsonNode sessions = json.get("recovery_sessions");
        if (sessions == null || json.get("per_rank").get(0).get("incarnation").asInt() > 0)
        {
            return;
        }
        int checked = 0;
        for (final JsonNode session : sessions)
        {
            final Map<Integer, Long> oracle;
            try
            {
                oracle = RecoveryLineOracle.line(traces, 4, clusters, session);
            }
            catch (final IllegalStateException e)
            {
                throw new AssertionError(e.getMessage() + "\n" + output, e);
            }
            if (oracle == null)
            {
                continue;
            }
            final Map<Integer, Long> line = new TreeMap<>();
            session.get("rolled_back_to").fields().forEachRemaining(e -> line.put(Integer.parseInt(e.getKey()),
                RecoveryLineOracle.cut(e.getValue())));
            assertEquals(oracle, line, "recovery session " + session + ": the line against the oracle's\n" + output);
            checked++;
        }
        assertTrue(checked > 0, "no recovery session could be checked against the oracle: " + sessions + "\n" +
            output);
    }

    /**
     * A rank that ran on re-executed no send; one started again counts as re-executed at least the sends it skipped
     * (its target held them) and those it posted that an earlier incarnation had posted (from the trace).
     */
    private static void assertReexecutedSends(final Path traces, final JsonNode json, final String output)
        throws IOException
    {
        final JsonNode perRank = json.get("per_rank");
        for (int r = 0; r < 4; r++)
        {
            final JsonNode p2f = perRank.get(r).get("p2f");
            final long reexecuted = p2f.get("reexecuted_sends").asLong();
            if (perRank.get(r).get("incarnation").asInt() == 0)
            {
                assertEquals(0, reexecuted, "rank " + r + " ran on: " + perRank.get(r) + "\n" + output);
                continue;
            }
            final long reposted = RecoveryLineOracle.repostedByLastIncarnation(traces, r);
            assertTrue(reexecuted >= p2f.get("suppressed").asLong() + reposted, "rank " + r + " counts " + reexecuted +
                " re-executed sends, but skipped " + p2f.get("suppressed") + " and posted again " + reposted + ": " +
                perRank.get(r) + "\n" + output);
        }
        assertEquals(IntStream.range(0, 4).mapToLong(r -> perRank.get(r).get("p2f").get("reexecuted_sends").asLong())
            .sum(), json.get("p2f").get("reexecuted_sends").asLong(), json.get("p2f").toString());
    }

    private record Launch(String output, JsonNode json, int killed)
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
