package dev.spillway.ranks;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.cli.SpillwayCli;
import dev.spillway.io.CrashPoints;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code launch -n 2 --redundancy 2 --max-restarts 1 run lu --checkpoint-dir ...} over real UCX endpoints (design
 * §D.5): what replication cannot take over restarts the job from the newest cut every sphere verified, with the
 * unreplicated run's result checksum. The death of a whole sphere (two {@code kill -9}, the first replica long before
 * the second, so its directory lacks the newer cuts and it copies them from its partner) and one bit flipped in what a
 * task wrote on one replica (caught when the sphere compares its next cut, or, written after the last transfer of a
 * result, when the replicas compare their results at the end) both do. A replica killed during a cut or
 * during its sphere's digest exchange is taken over like any other; one outvoted by the other two of three is mended
 * from them, and all three run on.
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

    /** The result checksum of two unreplicated ranks without checkpoints: the replicated runs must give it. */
    @BeforeAll
    static void unreplicatedRun() throws Exception
    {
        RankChildSupport.requireUcx();
        final List<String> all = new ArrayList<>(List.of("launch", "-n", "2"));
        all.addAll(LU);
        all.addAll(List.of("--dir", shared.resolve("spill").toString(), "--json",
            shared.resolve("plain.json()").toString()));
        final RankChild child = RankChild.cli("launch", all).start(shared);
        try
        {
            assertEquals(0, child.await(LIMIT), child.output());
        }
        finally
        {
            child.destroy();
        }
        reference = new ObjectMapper().readTree(shared.resolve("plain.json()").toFile()).get("result_checksum")
            .asText();
    }

    @Test
    void theDeathOfAWholeSphereRestartsTheJobAndAReplicaTakenOverEarlierCopiesItsPartnersCut() throws Exception
    {
        // Rank 1 runs on slots 2 and 3: slot 3 dies at its 10th task (a takeover), slot 2 at its 120th.
        final KilledLaunch launch = launch(dir, List.of("--crash-at", "3:" + CrashPoints.IN_TASK + ":10", "--crash-at",
            "2:" + CrashPoints.IN_TASK + ":120"));
        assertBothKilledAndTheReferenceResult(launch);
        assertTrue(launch.output().contains("slot 3 (rank 1's replica) exited with status 137 (killed by signal 9); " +
            "replicas [2] run on (takeover: no restart)"), launch.output());
        assertTrue(launch.output().contains("every replica of its sphere is lost"), launch.output());
        assertTrue(launch.output().contains("relaunching all 4 processes as incarnation 1"), launch.output());
        assertTrue(launch.output().contains("rank 1 replica 1 (slot 3) lacks the global cut at index") &&
            launch.output().contains("every block verified"), "slot 3 copies the cut from slot 2:\n" + launch.output());
        assertTrue(launch.output().contains("incarnation 1, resumed from the cut at global index"), launch.output());
    }

    @Test
    void replicasKilledDuringACutAndDuringTheDigestExchangeAreTakenOver() throws Exception
    {
        // Rank 1's slot 3 while it captures a cut, rank 0's slot 1 as it starts comparing one with slot 0.
        final KilledLaunch launch = launch(dir, List.of("--crash-at", "3:" + CrashPoints.CAPTURE + ":3", "--crash-at",
            "1:" + CrashPoints.DIGEST_EXCHANGE + ":2"));
        assertBothKilledAndTheReferenceResult(launch);
        for (final String slot : List.of("slot 3 (rank 1's replica)", "slot 1 (rank 0's replica)"))
        {
            assertTrue(launch.output().contains(slot + " exited with status 137 (killed by signal 9); replicas [") &&
                launch.output().contains("(takeover: no restart)"), slot + ":\n" + launch.output());
        }
        assertFalse(launch.output().contains("relaunching"), "a takeover restarts nothing:\n" + launch.output());
    }

    @Test
    void aBitFlippedOnOneReplicaIsCaughtAtTheNextCutAndTheJobRollsBack() throws Exception
    {
        final KilledLaunch launch = launch(dir, List.of("--flip-at", "3:100"));
        assertEquals(0, launch.exit(), launch.output());
        assertTrue(launch.output().contains("[slot 3] BITFLIP task '"), "the flip must happen:\n" + launch.output());
        assertEquals(reference, launch.json().get("result_checksum").asText(), "the result after the roll-back:\n" +
            launch.output());
        assertTrue(launch.output().contains("silent data corruption detected"), launch.output());
        assertTrue(launch.output().contains("relaunching all 4 processes as incarnation 1"), launch.output());
    }

    @Test
    void aBitFlippedOnOneOfThreeReplicasIsOutvotedAndMendedWithoutARestart() throws Exception
    {
        // Rank 1 runs on slots 3, 4 and 5: slot 4's flipped tile is outvoted wherever its copies arrive, and its
        // sphere outvotes slot 4 at the next cut, whose later tasks wait for the vote; slot 3 sends it the objects
        // that differ, and all three run on.
        final KilledLaunch launch = launch(dir, "3", List.of("--flip-at", "4:100"), LU);
        assertEquals(0, launch.exit(), launch.output());
        assertTrue(launch.output().contains("[slot 4] BITFLIP task '"), "the flip must happen:\n" + launch.output());
        assertEquals(reference, launch.json().get("result_checksum").asText(), launch.output());
        assertTrue(launch.output().contains("rank 1's replica in slot 4 was outvoted at the global cut at index ") &&
            launch.output().contains(" from slot 3; no rollback"), launch.output());
        assertFalse(launch.output().contains("exited with status"), "no replica leaves:\n" + launch.output());
        assertFalse(launch.output().contains("relaunching"), "a majority restarts nothing:\n" + launch.output());
    }

    @Test
    void aBitFlippedAfterTheLastTransferOfAResultIsCaughtAtTheEndAndTheJobRollsBack() throws Exception
    {
        // matmul's C tiles of rank 0 are verified where they are: slot 1's 55th write (the last update of C[3,0])
        // travels nowhere, so only the comparison of the replicas' results at the end can see it.
        final List<String> matmul = List.of("run", "matmul", "--n", "256", "--tile", "64", "--workers", "1",
            "--dram", "2m");
        final List<String> one = new ArrayList<>(matmul);
        one.addAll(List.of("--dir", dir.resolve("one").toString(), "--json", dir.resolve("one.json").toString()));
        assertEquals(0, SpillwayCli.commandLine().execute(one.toArray(new String[0])));
        final String expected = new ObjectMapper().readTree(dir.resolve("one.json").toFile()).get("result_checksum")
            .asText();
        final KilledLaunch launch = launch(dir, "2", List.of("--flip-at", "1:55"), matmul);
        assertEquals(0, launch.exit(), launch.output());
        assertTrue(launch.output().contains("[slot 1] BITFLIP task '"), "the flip must happen:\n" + launch.output());
        assertTrue(launch.output().contains("silent data corruption detected at the end of the run: the replicas of " +
            "rank 0 computed different results"), launch.output());
        assertTrue(launch.output().contains("relaunching all 4 processes as incarnation 1"), launch.output());
        assertEquals(expected, launch.json().get("result_checksum").asText(), "the result after the roll-back:\n" +
            launch.output());
    }

    /** Both armed crash points were reached and killed, and the job still exited 0 with the reference result. */
    private static void assertBothKilledAndTheReferenceResult(final KilledLaunch launch)
    {
        assertEquals(2, launch.killed().size(), "both crash points must be reached and killed:\n" + launch.output());
        assertEquals(0, launch.exit(), launch.output());
        assertEquals(reference, launch.json().get("result_checksum").asText(), launch.output());
    }

    private static KilledLaunch launch(final Path dir, final List<String> args) throws Exception
    {
        return launch(dir, "2", args, LU);
    }

    /**
     * Runs {@code spillway launch -n 2 --redundancy <degree> --max-restarts 1 <args> <kernel> --checkpoint-dir ...},
     * killing every replica that reports a crash point.
     */
    private static KilledLaunch launch(final Path dir, final String degree, final List<String> args,
        final List<String> kernel) throws Exception
    {
        final List<String> all = new ArrayList<>(List.of("launch", "-n", "2", "--redundancy", degree,
            "--max-restarts", "1"));
        all.addAll(args);
        all.addAll(kernel);
        all.addAll(List.of("--checkpoint-dir", dir.resolve("ck").toString(), "--checkpoint-every", "40"));
        return KilledLaunch.run(dir, all, LIMIT);
    }
}
