package dev.spillway.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.SpillwayStats;
import dev.spillway.io.StoreKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The trace of a run that spills, pins an object, takes checkpoints and marks phases: valid trace-event JSON with
 * counter tracks of DRAM and store bandwidth that agree with the runtime's own counters, and rows of phases and
 * checkpoint generations.
 */
class TraceEventsTest
{
    private static final int SIZE = 64 << 10;
    private static final int OBJECTS = 12;
    private static final int STEPS = 120;

    @TempDir
    Path dir;

    @Test
    void countersPhasesAndCheckpointsAreTraced() throws Exception
    {
        final Path file = dir.resolve("trace.json");
        final MemoryCheckpointStore store = new MemoryCheckpointStore();
        final long budget = 6L * SIZE;
        final SpillwayStats stats;
        final CheckpointReport checkpoints;
        final long pinnedCharge;
        try (Spillway sw = Spillway.builder().storeDir(dir.resolve("spill")).store(StoreKind.DIRECT)
            .dramBudget(budget).workers(2).storeSizing(256, SIZE).checkpoints(store, CheckpointEngineTest.everyTasks(30))
            .traceFile(file).build())
        {
            assertThrows(IllegalArgumentException.class, () -> sw.tracePhase(" "));
            sw.tracePhase("generation");
            pinnedCharge = sw.dramCharge(SIZE);
            final Data pinned = sw.pinnedData("ghost", SIZE);
            sw.task("init ghost").write(pinned).submit(ctx -> fill(ctx.buffer(pinned), 99));
            final Data[] d = new Data[OBJECTS];
            for (int i = 0; i < OBJECTS; i++)
            {
                final Data x = sw.data("x" + i, SIZE);
                final int seed = i;
                d[i] = x;
                sw.task("init " + i).write(x).submit(ctx -> fill(ctx.buffer(x), seed));
            }
            sw.awaitAll();
            sw.tracePhase("compute");
            for (int k = 0; k < STEPS; k++)
            {
                final Data out = d[k % OBJECTS];
                final Data in = d[(k + 5) % OBJECTS];
                sw.task("step " + k).readWrite(out).read(in).read(pinned).submit(ctx ->
                    ctx.buffer(out).putLong(0, ctx.buffer(out).getLong(0) + ctx.buffer(in).getLong(8)));
            }
            sw.awaitAll();
            sw.stopCheckpoints();
            sw.tracePhase("verification");
            for (final Data x : d)
            {
                sw.task("read " + x.tag()).read(x).submit(ctx -> ctx.buffer(x).getLong(0));
            }
            sw.awaitAll();
            stats = sw.stats();
            checkpoints = sw.checkpointReport();
        }
        assertTrue(stats.nvmBytesRead() > 0 && stats.nvmBytesWritten() > 0, "the run did not spill: " + stats);

        final Events events = Events.of(new ObjectMapper().readTree(file.toFile()));
        final List<JsonNode> dram = events.counters("DRAM");
        assertTrue(dram.size() >= 2, "a sample at the start and one at close");
        assertTrue(dram.stream().anyMatch(e -> e.get("args").get("objects").asLong() > 0), "no object DRAM");
        assertEquals(0, dram.get(0).get("args").get("pinned").asLong(), "nothing is pinned before the run");
        assertEquals(pinnedCharge, dram.get(dram.size() - 1).get("args").get("pinned").asLong(), "the pinned object");
        assertTrue(dram.stream().allMatch(e -> e.get("args").has("staging") && e.get("args").has("pooled")));
        assertTrue(dram.stream().allMatch(e -> sum(e.get("args")) <= budget), "more DRAM than the budget");
        final List<JsonNode> line = events.counters("DRAM budget");
        assertEquals(2, line.size());
        assertEquals(budget, line.get(0).get("args").get("budget").asLong());

        final List<JsonNode> bandwidth = events.counters("store bandwidth");
        assertEquals(dram.size(), bandwidth.size());
        assertEquals(stats.nvmBytesRead(), integral(bandwidth, "read"), 1e-3 * stats.nvmBytesRead());
        assertEquals(stats.nvmBytesWritten(), integral(bandwidth, "write"), 1e-3 * stats.nvmBytesWritten());
        final JsonNode cache = last(events.counters("cache"));
        assertEquals(stats.hits(), cache.get("hits").asLong());
        assertEquals(stats.misses(), cache.get("misses").asLong());
        final JsonNode evictions = last(events.counters("evictions"));
        assertEquals(stats.cleanEvictions(), evictions.get("clean").asLong());
        assertEquals(stats.dirtyEvictions(), evictions.get("dirty").asLong());
        final JsonNode background = last(events.counters("background IO"));
        assertEquals(stats.writeBehinds(), background.get("write-behinds").asLong());
        assertEquals(stats.prefetches(), background.get("prefetches").asLong());

        final List<JsonNode> phases = events.spans("phases");
        assertEquals(List.of("generation", "compute", "verification"),
            phases.stream().map(e -> e.get("name").asText()).toList());
        for (int i = 1; i < phases.size(); i++)
        {
            final JsonNode before = phases.get(i - 1);
            assertEquals(before.get("ts").asDouble() + before.get("dur").asDouble(), phases.get(i).get("ts").asDouble(),
                1e-3, "phases follow one another");
        }
        final List<JsonNode> generations = events.spans("checkpoints");
        assertTrue(checkpoints.committed() >= 1, checkpoints.toString());
        assertEquals(checkpoints.committed(), generations.stream()
            .filter(e -> e.get("name").asText().matches("checkpoint \\d+")).count(), generations.toString());
    }

    /** @return the bytes a bandwidth series adds up to: each rate times the time to the next sample. */
    private static double integral(final List<JsonNode> samples, final String series)
    {
        double bytes = 0;
        for (int i = 0; i + 1 < samples.size(); i++)
        {
            final double seconds = (samples.get(i + 1).get("ts").asDouble() - samples.get(i).get("ts").asDouble()) / 1e6;
            bytes += samples.get(i).get("args").get(series).asDouble() * seconds;
        }
        return bytes;
    }

    private static long sum(final JsonNode args)
    {
        long sum = 0;
        for (final JsonNode v : args)
        {
            sum += v.asLong();
        }
        return sum;
    }

    private static JsonNode last(final List<JsonNode> samples)
    {
        return samples.get(samples.size() - 1).get("args");
    }

    private static void fill(final ByteBuffer b, final long seed)
    {
        for (int j = 0; j + 8 <= SIZE; j += 8)
        {
            b.putLong(j, seed * 31 + j);
        }
    }

    /** The events of a trace, by kind, in file order. */
    private record Events(Map<String, List<JsonNode>> counters, Map<String, List<JsonNode>> spansByRow)
    {
        static Events of(final JsonNode trace)
        {
            final Map<Long, String> rows = new HashMap<>();
            final Map<String, List<JsonNode>> counters = new HashMap<>();
            final List<JsonNode> spans = new ArrayList<>();
            for (final JsonNode e : trace.get("traceEvents"))
            {
                switch (e.get("ph").asText())
                {
                    case "M" -> rows.put(e.get("tid").asLong(), e.get("args").get("name").asText());
                    case "C" -> counters.computeIfAbsent(e.get("name").asText(), k -> new ArrayList<>()).add(e);
                    case "X" -> spans.add(e);
                    default -> throw new AssertionError("unexpected event " + e);
                }
            }
            final Map<String, List<JsonNode>> byRow = new HashMap<>();
            for (final JsonNode s : spans)
            {
                byRow.computeIfAbsent(rows.get(s.get("tid").asLong()), k -> new ArrayList<>()).add(s);
            }
            return new Events(counters, byRow);
        }

        List<JsonNode> counters(final String name)
        {
            return counters.getOrDefault(name, List.of());
        }

        List<JsonNode> spans(final String row)
        {
            return spansByRow.getOrDefault(row, List.of());
        }
    }
}
