package dev.spillway.ranks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.io.CrashPoints;
import dev.spillway.memory.ByteUnits;
import dev.spillway.resilience.buddy.BuddyCheckpoints;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code run --buddy staged} under {@code launch}: a rank killed with {@code kill -9} at a named point, its node's
 * disk lost with it ({@code launch --lose-disks} deletes its checkpoint directory before the relaunch, so a restore
 * cannot read what a real node loss destroys), comes back from its buddy's copy with a bit-identical result. The
 * buddy killed alone restores the same way; a rank and its buddy lost together end in "no surviving copy", never in a
 * wrong result; a flipped bit in every block of the buddy's copies is caught by the checksums as each is fetched (so
 * no older cut is left either), and reaches the result with them off.
 * The buddy's own directory is deleted with it when it is the victim, so that it restores from its partner.
 */
@Tag("process")
class BuddyNodeLossTest
{
    private static final Duration LIMIT = Duration.ofMinutes(10);
    private static final List<String> LU = List.of("run", "lu", "--n", "512", "--tile", "64", "--workers", "1",
        "--checkpoint-every", "30", "--buddy", "staged");

    @TempDir
    static Path shared;
    @TempDir
    Path dir;

    private static String reference;

    @BeforeAll
    static void failureFreeRun() throws Exception
    {
        RankChildSupport.requireUcx();
        final Launch run = launch(shared.resolve("reference"), 2, List.of(), Set.of(), false, null);
        assertEquals(0, run.exit, run.child.output());
        final JsonNode json = run.json();
        assertTrue(json.get("verified").asBoolean(), json.toString());
        assertTrue(json.get("checkpoints").asInt() >= 3, "the reference run committed too few checkpoints: " + json);
        assertTrue(run.child.stderr().contains("is durable at buddy rank"), run.child.output());
        reference = json.get("result_checksum").asText();
    }

    /**
     * Rank 1 killed in a task, as it streams a generation to its buddy (the newest copy at the buddy is then the
     * generation before), and after its last chunk before the generation's end; rank 0, the buddy, killed as it
     * makes the copy durable, its record of the global commits lost with its node. Each point lies in the third
     * generation or a later one, so a global checkpoint exists.
     */
    @ParameterizedTest
    @ValueSource(strings = {"1:" + CrashPoints.IN_TASK + ":100", "1:" + CrashPoints.BUDDY_STREAM + ":5",
        "1:" + CrashPoints.BUDDY_BEFORE_END + ":3", "0:" + CrashPoints.BUDDY_KEEP + ":3"})
    void aLostNodeComesBackFromItsBuddy(final String spec) throws Exception
    {
        final int victim = Integer.parseInt(spec.split(":")[0]);
        final Launch run = launch(dir, 2, List.of("--max-restarts", "2", "--crash-at", spec), Set.of(victim), false,
            null);
        assertRestoredFromBuddy(run, victim, 1 - victim);
    }

    /**
     * With every chunk put one-sided into the buddy's ring: rank 1 killed as it puts a chunk of its third generation
     * or a later one, the buddy's newest complete copy restored.
     */
    @Test
    void overPutsALostNodeComesBackFromItsBuddy() throws Exception
    {
        final Launch run = launch(dir, 2, List.of("--max-restarts", "2", "--crash-at", STREAMING), Set.of(1), false,
            null, BuddyCheckpoints.Stream.PUTS);
        assertRestoredFromBuddy(run, 1, 0);
        assertTrue(run.child.stderr().contains("the buddy copy's buffers take " +
            ByteUnits.format(BuddyCheckpoints.dramBytes(BuddyCheckpoints.Stream.PUTS))), "the ranks must hold the " +
            "ring's buffers, so copy over puts: " + run.child.output());
    }

    /**
     * As above over {@code launch --transport shm}: UCX without peer error handling, so the puts go one-sided through
     * shared memory or cma, and rank 0 finds rank 1 lost by heartbeats alone.
     */
    @Test
    void overSharedMemoryPutsALostNodeComesBackFromItsBuddy() throws Exception
    {
        final Launch run = launch(dir, 2, List.of("--max-restarts", "2", "--transport", "shm", "--crash-at",
            STREAMING), Set.of(1), false, null, BuddyCheckpoints.Stream.PUTS);
        assertRestoredFromBuddy(run, 1, 0);
        assertTrue(run.child.stderr().contains("ranks over UCX without peer error handling (SPILLWAY_TRANSPORT=shm)"),
            "the ranks must run without peer error handling: " + run.child.output());
    }

    /** A ring, where a rank's buddy is not its partner, either way the chunks travel. */
    @ParameterizedTest
    @EnumSource(BuddyCheckpoints.Stream.class)
    void aRingOfThreeRestoresFromTheNextRank(final BuddyCheckpoints.Stream stream) throws Exception
    {
        final Launch run = launch(dir, 3, List.of("--max-restarts", "2", "--crash-at",
            "2:" + CrashPoints.IN_TASK + ":40"), Set.of(2), false, null, stream);
        assertRestoredFromBuddy(run, 2, 0);
    }

    @Test
    void aKillWhileFetchingFetchesAgain() throws Exception
    {
        final Launch run = launch(dir, 2, List.of("--max-restarts", "3", "--crash-at",
            "1:" + CrashPoints.IN_TASK + ":100", "--crash-at", "1:" + CrashPoints.BUDDY_FETCH + ":1@1"), Set.of(1),
            false, null);
        assertEquals(2, run.killed.size(), "both crash points must be reached: " + run.child.output());
        assertRestoredFromBuddy(run, 1, 0);
    }

    /** In a ring of three, rank 1 and its buddy rank 2 lost together: rank 0's record names a cut rank 1 lost. */
    @Test
    void aRankAndItsBuddyLostTogetherIsNoSurvivingCopy() throws Exception
    {
        final Launch run = launch(dir, 3, List.of("--max-restarts", "2", "--crash-at",
            "1:" + CrashPoints.IN_TASK + ":40"), Set.of(1, 2), false, null);
        assertNotEquals(0, run.exit, "nothing survived to restore from, yet the job succeeded:\n" +
            run.child.output());
        assertTrue(run.child.stderr().contains("no surviving copy of rank 1"), run.child.output());
        assertFalse(Files.exists(run.jsonFile), "a job that could not restore wrote a result:\n" +
            run.child.output());
    }

    /**
     * Both nodes of a pair lost, records of the global commits included: nothing says the job ever checkpointed, so
     * it runs again from the beginning, to the same result.
     */
    @Test
    void everyNodeLostRunsTheJobAgainFromTheBeginning() throws Exception
    {
        final Launch run = launch(dir, 2, List.of("--max-restarts", "2", "--crash-at",
            "1:" + CrashPoints.IN_TASK + ":100"), Set.of(0, 1), false, null);
        assertEquals(0, run.exit, run.child.output());
        assertEquals(reference, run.json().get("result_checksum").asText(), run.child.output());
        assertFalse(run.json().get("recovery").get("restored_global_index").isNumber(), "restored a cut no node " +
            "kept: " + run.json().get("recovery"));
    }

    /**
     * Rank 1 parked as it streams its third generation or a later one (here a generation sends at most two chunks,
     * a blocks file under 1 MiB and its manifest, and the first sends both): every earlier one is at its buddy, none
     * changes meanwhile, and the cut two before it is globally committed (a rank begins a cut while the copy of the
     * one before is in flight, not while two are).
     */
    private static final String STREAMING = "1:" + CrashPoints.BUDDY_STREAM + ":5";

    @Test
    void aFlippedBitInTheBuddysCopyIsCaught() throws Exception
    {
        final Launch run = launch(dir, 2, List.of("--max-restarts", "2", "--crash-at", STREAMING), Set.of(1), true,
            null);
        assertNotEquals(0, run.exit, "the corrupt copy was restored:\n" + run.child.output());
        final String err = run.child.stderr();
        assertTrue(err.contains("no surviving copy of rank 1's checkpoint of the global cut") &&
            err.contains("its copy, fetched, failed verification") && err.contains("failed its checksum"),
            "rank 1 must verify every (flipped) copy it fetches and reject it, naming the checksum:\n" +
            run.child.output());
        assertFalse(Files.exists(run.jsonFile), "a job whose copy was corrupt wrote a result:\n" +
            run.child.output());
    }

    @Test
    void withChecksumsOffTheFlippedBitReachesTheResult() throws Exception
    {
        final Launch run = launch(dir, 2, List.of("--max-restarts", "2", "--crash-at", STREAMING), Set.of(1), true,
            "false");
        assertTrue(Files.exists(run.jsonFile), "the unverified restore must run to the end:\n" + run.child.output());
        assertNotEquals(reference, run.json().get("result_checksum").asText(), "the negative control restored a " +
            "flipped copy without checksums, so its result must differ:\n" + run.child.output());
    }

    private void assertRestoredFromBuddy(final Launch run, final int victim, final int buddy) throws Exception
    {
        assertEquals(0, run.exit, run.child.output());
        final JsonNode json = run.json();
        assertEquals(reference, json.get("result_checksum").asText(),
            "the job restored from a buddy's copy differs from the failure-free run\n" + run.child.output());
        assertTrue(json.get("recovery").get("restored_global_index").isNumber(), "a global checkpoint existed " +
            "before the kill, so one is restored: " + json.get("recovery"));
        assertTrue(run.child.stderr().contains("rank " + victim + "'s own directory cannot restore the global cut at " +
            "index " + json.get("recovery").get("restored_global_index").asLong()), run.child.output());
        assertTrue(run.child.stderr().contains("from its buddy rank " + buddy + ":"), run.child.output());
        if (victim == 0)
        {
            // Rank 0's record of the global commits went with its node: rank 1's own record names the cut.
            assertTrue(run.child.stderr().contains("rank 0 has no record of the job's global commits") &&
                run.child.stderr().contains("rank 1 recorded the global cut at index " +
                json.get("recovery").get("restored_global_index").asLong()), run.child.output());
        }
    }

    /**
     * Runs {@code launch -n ranks <args> run lu ... --buddy staged}, killing at crash points; deletes the checkpoint
     * directories of {@code lost} before the relaunch ({@code --lose-disks}).
     *
     * @param flip   at the first crash point, before the kill, flip a bit in every block of rank 0's copy of rank 1.
     * @param verify null, or {@code -Dspillway.checkpoint.verify}'s value.
     */
    private static Launch launch(final Path dir, final int ranks, final List<String> args, final Set<Integer> lost,
        final boolean flip, final String verify) throws Exception
    {
        return launch(dir, ranks, args, lost, flip, verify, BuddyCheckpoints.Stream.MESSAGES);
    }

    /** As above, the chunks sent as {@code stream}, with 2 MiB of DRAM for data beside the copy's buffers. */
    private static Launch launch(final Path dir, final int ranks, final List<String> args, final Set<Integer> lost,
        final boolean flip, final String verify, final BuddyCheckpoints.Stream stream) throws Exception
    {
        Files.createDirectories(dir);
        final Path ckpt = dir.resolve("ckpt");
        final List<String> all = new ArrayList<>(List.of("launch", "-n", Integer.toString(ranks)));
        all.addAll(args);
        if (!lost.isEmpty())
        {
            all.addAll(List.of("--lose-disks", String.join(",", lost.stream().sorted().map(String::valueOf).toList())));
        }
        all.addAll(LU);
        all.addAll(List.of("--dram", ((2L << 20) + BuddyCheckpoints.dramBytes(stream) >> 10) + "k", "--buddy-stream",
            stream.name().toLowerCase(Locale.ROOT)));
        all.addAll(List.of("--checkpoint-dir", ckpt.toString(), "--dir", dir.resolve("spill").toString(), "--json",
            dir.resolve("out.json").toString()));
        RankChild child = RankChild.cli("launch", all);
        if (verify != null)
        {
            child = child.property("spillway.checkpoint.verify", verify);
        }
        child.start(dir);
        try
        {
            if (flip)
            {
                awaitCrashPoint(child);
                flipCopies(ckpt.resolve("rank-0").resolve("buddy-of-1"));
            }
            final Set<Long> killed = child.killAtCrashPoints(LIMIT);
            return new Launch(child, child.await(LIMIT), dir.resolve("out.json"), killed);
        }
        finally
        {
            child.destroy();
        }
    }

    /** Waits until a rank parks at its crash point; {@code launch} prints rank 0's on stdout, the others' on stderr. */
    private static void awaitCrashPoint(final RankChild launch) throws Exception
    {
        final long deadline = System.nanoTime() + LIMIT.toNanos();
        while (!(launch.stdout() + launch.stderr()).contains("CRASHPOINT "))
        {
            assertTrue(launch.alive(), "launch ended before any rank reached its crash point:\n" + launch.output());
            assertTrue(System.nanoTime() < deadline, "no rank reached its crash point in " + LIMIT.toMinutes() +
                " min:\n" + launch.output());
            Thread.sleep(20);
        }
    }

    /** Flips a bit in every 4 KiB page of every blocks file of a buddy's copy: in every block, each starting on one. */
    private static void flipCopies(final Path copy) throws IOException
    {
        final List<Path> blocks;
        try (Stream<Path> files = Files.list(copy))
        {
            blocks = files.filter(f -> f.getFileName().toString().endsWith(".dat")).toList();
        }
        assertFalse(blocks.isEmpty(), "the buddy holds no copy to corrupt in " + copy);
        for (final Path file : blocks)
        {
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
            {
                for (long at = 100; at < raf.length(); at += 4096)
                {
                    raf.seek(at);
                    final int b = raf.read();
                    raf.seek(at);
                    raf.write(b ^ 0x10);
                }
            }
        }
    }

    private record Launch(RankChild child, int exit, Path jsonFile, Set<Long> killed)
    {
        JsonNode json() throws IOException
        {
            assertTrue(Files.exists(jsonFile), "no result was written:\n" + child.output());
            return new ObjectMapper().readTree(jsonFile.toFile());
        }
    }
}
