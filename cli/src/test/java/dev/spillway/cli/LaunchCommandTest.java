package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code launch -n 3 run ...} starts three ranks whose result equals one rank's, and reports per-rank figures. */
@Tag("process")
class LaunchCommandTest
{
    @TempDir
    Path dir;

    @Test
    void threeLocalRanksGiveTheSingleRankResult() throws Exception
    {
        dev.spillway.ranks.RankChildSupport.requireUcx();
        final String[] lu = {"lu", "--n", "384", "--tile", "64", "--workers", "1", "--dram", "4m", "--pivoting"};
        assertEquals(0, SpillwayCli.commandLine().execute(args("run", lu, "one")));
        assertEquals(0, SpillwayCli.commandLine().execute(args("launch -n 3 run", lu, "three")));
        final JsonNode one = new ObjectMapper().readTree(dir.resolve("one.json").toFile());
        final JsonNode three = new ObjectMapper().readTree(dir.resolve("three.json").toFile());
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
    void refusesCheckpointsOnSeveralRanks() throws Exception
    {
        dev.spillway.ranks.RankChildSupport.requireUcx();
        final String[] lu = {"lu", "--n", "128", "--tile", "64", "--checkpoint-dir", dir.resolve("c").toString()};
        assertEquals(2, SpillwayCli.commandLine().execute(args("launch -n 2 run", lu, "c")));
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
