package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.kernels.Kernel;
import dev.spillway.kernels.blas.JavaBlas;
import dev.spillway.kernels.dense.Lu;
import dev.spillway.kernels.graph.ScheduleGraph;
import dev.spillway.ranks.RankChildSupport;
import dev.spillway.ranks.TransferSchedule;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The schedule simulator against real traces (design note §A.8: validate before quoting simulated rank counts):
 * {@code launch -n N run … --trace-p2f DIR} records every transfer of a real job, and the transfers of the kernel's
 * part of the run equal what {@link ScheduleGraph} works out for N ranks, local sequence numbers included.
 */
@Tag("process")
class P2fTraceTest
{
    @TempDir
    Path dir;

    @Test
    void luOnFourAndEightRanksMatchesTheSchedule() throws Exception
    {
        RankChildSupport.requireUcx();
        for (final int ranks : new int[] {4, 8})
        {
            final Path traces = dir.resolve("lu-" + ranks);
            assertEquals(0, SpillwayCli.commandLine().execute(("launch -n " + ranks + " run lu --n 512 --tile 64 "
                + "--workers 1 --dram 4m --checkpoint-dir " + dir.resolve("ckpt-" + ranks) + " --checkpoint-every 40 "
                + "--dir " + dir.resolve("data-" + ranks) + " --trace-p2f " + traces).split(" ")));
            check(new Lu(512, 64, Lu.widthFor(4L << 20, 512, 64, false, ranks), false, new JavaBlas()), ranks, traces,
                40);
        }
    }

    @Test
    void theStencilOnFourRanksMatchesTheSchedule() throws Exception
    {
        RankChildSupport.requireUcx();
        final Path traces = dir.resolve("stencil");
        assertEquals(0, SpillwayCli.commandLine().execute(("launch -n 4 run stencil --grid 32,32,64 --tile 16 "
            + "--steps 3 --sweeps 1 --workers 1 --dram 8m --dir " + dir.resolve("data") + " --trace-p2f " + traces).split(" ")));
        check(StencilOptions.create(new int[] {32, 32, 64}, 16, 1, 3, 1), 4, traces, 0);
    }

    @Test
    void aSingleRankIsRefused()
    {
        assertEquals(2, SpillwayCli.commandLine().execute("run", "lu", "--n", "256", "--tile", "64", "--trace-p2f",
            dir.resolve("t").toString(), "--dir", dir.resolve("d").toString()));
    }

    /** The traced transfers of the kernel's submissions equal the schedule's; cuts lie every {@code every} tasks. */
    private static void check(final Kernel kernel, final int ranks, final Path traces, final long every)
        throws IOException
    {
        final ScheduleGraph graph = new ScheduleGraph(ranks);
        kernel.declare(graph);
        kernel.initialize(graph);
        kernel.compute(graph);
        final TransferSchedule schedule = graph.schedule();
        final TreeSet<String> expected = new TreeSet<>();
        for (int i = 0; i < schedule.transfers(); i++)
        {
            expected.add(schedule.globalIndex(i) + ": " + schedule.source(i) + "->" + schedule.target(i) + " seqs "
                + schedule.sendSeq(i) + "/" + schedule.receiveSeq(i));
        }
        final Map<String, JsonNode> sends = new HashMap<>();
        final List<JsonNode> receives = new ArrayList<>();
        final ObjectMapper mapper = new ObjectMapper();
        for (int r = 0; r < ranks; r++)
        {
            final List<String> lines = Files.readAllLines(P2fTrace.file(traces, r));
            assertEquals(r, mapper.readTree(lines.get(0)).get("rank").asInt());
            final List<Long> cuts = new ArrayList<>();
            for (final String line : lines.subList(1, lines.size()))
            {
                final JsonNode node = mapper.readTree(line);
                if (node.has("cut"))
                {
                    cuts.add(node.get("cut").asLong());
                }
                else if (!node.has("half"))
                {
                    continue;
                }
                else if (node.get("half").asText().equals("send"))
                {
                    sends.put(node.get("global_index").asLong() + " " + node.get("object").asText(), node);
                }
                else
                {
                    receives.add(node);
                }
            }
            for (int c = 0; c < cuts.size(); c++)
            {
                assertEquals(every * (c + 1), cuts.get(c), "rank " + r + " cut " + c + ": " + cuts);
            }
            assertTrue(every == 0 || !cuts.isEmpty(), "rank " + r + " recorded its cuts");
        }
        final TreeSet<String> actual = new TreeSet<>();
        for (final JsonNode receive : receives)
        {
            final long index = receive.get("global_index").asLong();
            if (index < schedule.submissions())
            {
                final JsonNode send = sends.get(index + " " + receive.get("object").asText());
                actual.add(index + ": " + send.get("source").asInt() + "->" + receive.get("target").asInt() + " seqs "
                    + send.get("seq").asLong() + "/" + receive.get("seq").asLong());
            }
        }
        assertTrue(expected.size() > ranks, "the kernel moves data: " + expected.size());
        assertEquals(expected, actual);
    }
}
