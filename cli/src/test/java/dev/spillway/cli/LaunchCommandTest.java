package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.ranks.GlobalCheckpoints;
import dev.spillway.ranks.RankChildSupport;
import org.junit.jupiter.api.Tag;
import picocli.CommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code launch -n 3 run ...} starts three ranks whose result equals one rank's, and reports per-rank figures; with
 * {@code --redundancy}, replicas of the ranks give the same result.
 */
@Tag("process")
class LaunchCommandTest
{
    @TempDir
    Path dir;

    @Test
    void threeLocalRanksGiveTheSingleRankResult() throws Exception
    {
        RankChildSupport.requireUcx();
        final String[] lu = {"lu", "--n", "384", "--tile", "64", "--workers", "1", "--dram", "4m", "--pivoting"};
        assertEquals(0, SpillwayCli.commandLine().execute(args("run", lu, "one")));
        assertEquals(0, SpillwayCli.commandLine().execute(args("launch -n 3 run", lu, "three")));
        final JsonNode one = new ObjectMapper().readTree(dir.resolve("one.json").toFile());
        final JsonNode three = new ObjectMapper().readTree(dir.resolve("three.json").toFile());
        RunSchema.assertConforms(three);
        assertEquals(one.get("result_checksum").asText(), three.get("result_checksum").asText(), three.toString());
        assertEquals(3, three.get("ranks").asInt());
        assertEquals(3, three.get("per_rank").size());
        assertTrue(three.get("verified").asBoolean());
        assertTrue(three.get("bytes_transferred").asLong() > 0, three.toString());
        for (final JsonNode rank : three.get("per_rank"))
        {
            assertNotEquals(0, rank.get("tasks").asLong(), "rank " + rank.get("rank") + " ran nothing");
        }
    }

    @Test
    void checkpointsOnSeveralRanksKeepTheResultAndADirectoryPerRank() throws Exception
    {
        RankChildSupport.requireUcx();
        final Path ckpt = dir.resolve("c");
        final String[] lu = {"lu", "--n", "256", "--tile", "64", "--workers", "1", "--dram", "1m"};
        final String[] checkpointed = {"lu", "--n", "256", "--tile", "64", "--workers", "1", "--dram", "1m",
            "--checkpoint-dir", ckpt.toString(), "--checkpoint-every", "10"};
        assertEquals(0, SpillwayCli.commandLine().execute(args("run", lu, "one")));
        assertEquals(0, SpillwayCli.commandLine().execute(args("launch -n 2 run", checkpointed, "two")));
        final JsonNode one = new ObjectMapper().readTree(dir.resolve("one.json").toFile());
        final JsonNode two = new ObjectMapper().readTree(dir.resolve("two.json").toFile());
        RunSchema.assertConforms(two);
        assertEquals(one.get("result_checksum").asText(), two.get("result_checksum").asText(), two.toString());
        assertTrue(two.get("global_checkpoints").asInt() > 1, two.toString());
        for (final JsonNode rank : two.get("per_rank"))
        {
            assertEquals(two.get("checkpoints").asInt(), rank.get("checkpoints").asInt(),
                "every rank commits every global cut: " + two);
        }
        assertTrue(Files.exists(ckpt.resolve("rank-0").resolve("complete")));
        assertTrue(Files.exists(ckpt.resolve("rank-1").resolve("complete")));
        assertFalse(Files.exists(ckpt.resolve(GlobalCheckpoints.RECORD)),
            "a completed job removes its global commit record");
    }

    @Test
    void replicatedRanksGiveTheSingleRankResultAndReportTheirCopies() throws Exception
    {
        RankChildSupport.requireUcx();
        final String[] lu = {"lu", "--n", "256", "--tile", "64", "--workers", "1", "--dram", "1m"};
        assertEquals(0, SpillwayCli.commandLine().execute(args("run", lu, "one")));
        assertEquals(0, SpillwayCli.commandLine().execute(args("launch -n 2 --redundancy 1.5 run", lu, "three")));
        final JsonNode one = new ObjectMapper().readTree(dir.resolve("one.json").toFile());
        final JsonNode three = new ObjectMapper().readTree(dir.resolve("three.json").toFile());
        RunSchema.assertConforms(three);
        assertEquals(one.get("result_checksum").asText(), three.get("result_checksum").asText(), three.toString());
        assertEquals(2, three.get("ranks").asInt(), "the program sees two ranks over three processes");
        final JsonNode replication = three.get("replication");
        assertTrue(replication.get("copies_sent").asLong() > 0, replication.toString());
        assertEquals(0, replication.get("copies_compared").asLong(), "rank 1 has one replica, so rank 0 has no " +
            "second copy to compare: " + replication);
        assertEquals(0.5, replication.get("sdc_coverage").asDouble(), "at 1.5x, one of two ranks has two replicas");
    }

    @Test
    void aTransportOtherThanTcpOrShmIsRefusedByName()
    {
        final CommandLine cli = SpillwayCli.commandLine();
        final StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err));
        assertNotEquals(0, cli.execute(args("launch -n 2 --transport rdma run", new String[] {"lu", "--n", "256"},
            "refused")));
        assertTrue(err.toString().contains("--transport 'rdma' is not a transport: use tcp (the default) or shm"),
            err.toString());
        assertTrue(RankEnvironment.errorHandling(Map.of()), "tcp, with peer error handling, is the default");
        assertTrue(RankEnvironment.errorHandling(Map.of(RankEnvironment.TRANSPORT_ENV, "tcp")));
        assertFalse(RankEnvironment.errorHandling(Map.of(RankEnvironment.TRANSPORT_ENV, "shm")));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> RankEnvironment.errorHandling(Map.of(RankEnvironment.TRANSPORT_ENV, "ib")));
        assertEquals("SPILLWAY_TRANSPORT='ib' is not a transport: use tcp (the default) or shm", e.getMessage());
    }

    @Test
    void redundancyRefusesWhatItCannotRunYet()
    {
        final String[] checkpointed = {"lu", "--n", "256", "--checkpoint-dir", dir.resolve("c").toString(),
            "--buddy", "staged"};
        final CommandLine cli = SpillwayCli.commandLine();
        final StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err));
        assertNotEquals(0, cli.execute(args("launch -n 2 --redundancy 2 run", checkpointed, "refused")));
        assertTrue(err.toString().contains("--buddy is not supported with it yet"), err.toString());
        final StringWriter low = new StringWriter();
        final CommandLine again = SpillwayCli.commandLine();
        again.setErr(new PrintWriter(low));
        assertNotEquals(0, again.execute(args("launch -n 2 --redundancy 0.5 run", new String[] {"lu"}, "low")));
        assertTrue(low.toString().contains("0.5"), low.toString());
        assertFalse(Files.exists(dir.resolve("refused.json")));
    }

    private String[] args(final String head, final String[] kernel, final String name)
    {
        final java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of(head.split(" ")));
        all.addAll(java.util.List.of(kernel));
        all.addAll(java.util.List.of("--dir", dir.resolve(name).toString(), "--json",
            dir.resolve(name + ".json").toString()));
        return all.toArray(new String[0]);
    }
}
