package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.ranks.RankChildSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code launch -n 4 run … --p2f --clusters 2}: real ranks over UCX log exactly the transfers that go from cluster 0
 * (ranks 0–1) to cluster 1 (ranks 2–3), as counted independently from the job's own transfer trace
 * ({@code --trace-p2f}), record every other one as a dependency, and compute the same result as without the
 * protocol.
 */
@Tag("process")
class P2fRunTest
{
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void luLogsExactlyTheTransfersToTheHigherCluster() throws Exception
    {
        check("lu", "run lu --n 512 --tile 64 --workers 1 --dram 4m --checkpoint-every 40");
    }

    @Test
    void theStencilLogsExactlyTheTransfersToTheHigherCluster() throws Exception
    {
        check("stencil", "run stencil --grid 32,32,64 --tile 16 --steps 3 --sweeps 2 --workers 1 --dram 8m " +
            "--checkpoint-every 8");
    }

    @Test
    void badUsesAreRefusedBeforeAnythingRuns()
    {
        assertEquals(2, SpillwayCli.commandLine().execute("run", "lu", "--n", "256", "--tile", "64", "--p2f",
            "--checkpoint-dir", dir.resolve("c").toString(), "--checkpoint-every", "20", "--dir",
            dir.resolve("d").toString()), "--p2f on a single process");
        assertEquals(2, SpillwayCli.commandLine().execute(("launch -n 2 run lu --n 256 --tile 64 --p2f " +
            "--checkpoint-dir " + dir.resolve("c2") + " --checkpoint-every 20s --dir " + dir.resolve("d2"))
            .split(" ")), "--p2f with timed cuts");
        assertEquals(2, SpillwayCli.commandLine().execute(("launch -n 2 run lu --n 256 --tile 64 --p2f " +
            "--clusters 3 --checkpoint-dir " + dir.resolve("c3") + " --checkpoint-every 20 --dir " +
            dir.resolve("d3")).split(" ")), "more clusters than ranks");
    }

    private void check(final String name, final String command) throws IOException
    {
        RankChildSupport.requireUcx();
        final JsonNode plain = launch(name + "-plain", command);
        final Path traces = dir.resolve(name + "-traces");
        final JsonNode p2f = launch(name + "-p2f", command + " --p2f --clusters 2 --trace-p2f " + traces);
        assertEquals(plain.get("result_checksum").asText(), p2f.get("result_checksum").asText(),
            "the protocol changed the result");
        assertTrue(p2f.get("verified").asBoolean(), p2f.toString());
        long sends = 0;
        long upward = 0;
        for (int r = 0; r < 4; r++)
        {
            final List<String> lines = Files.readAllLines(P2fTrace.file(traces, r));
            for (final String line : lines.subList(1, lines.size()))
            {
                final JsonNode node = MAPPER.readTree(line);
                if (node.has("half") && node.get("half").asText().equals("send"))
                {
                    sends++;
                    upward += node.get("source").asInt() / 2 < node.get("target").asInt() / 2 ? 1 : 0;
                }
            }
        }
        final JsonNode figures = p2f.get("p2f");
        assertTrue(upward > 0 && upward < sends, "the kernel must move data both ways across the clusters: " +
            upward + " of " + sends);
        assertEquals(sends, figures.get("transfers").asLong(), "transfers stamped: " + figures);
        assertEquals(upward, figures.get("logged").asLong(), "transfers logged: " + figures);
        assertEquals(sends - upward, figures.get("dependencies").asLong(), "dependencies: " + figures);
        assertTrue(p2f.get("checkpoints").asLong() >= 3, "too few generations to tell anything: " +
            p2f.get("checkpoints"));
    }

    private JsonNode launch(final String name, final String command) throws IOException
    {
        final Path json = dir.resolve(name + ".json");
        assertEquals(0, SpillwayCli.commandLine().execute(("launch -n 4 " + command + " --checkpoint-dir " +
            dir.resolve(name + "-ckpt") + " --dir " + dir.resolve(name + "-data") + " --json " + json).split(" ")),
            name);
        return MAPPER.readTree(json.toFile());
    }
}
