package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.spillway.memory.ByteUnits;
import dev.spillway.rdma.UcxTransport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code spillway bench checkpoint}: out-of-core LU run back to back in child JVMs under one memory cap: without
 * checkpoints, with semi-blocking checkpoints at the automatic interval, with blocking checkpoints at that same
 * interval, and once killed with SIGKILL and resumed, to time recovery. With {@code --ranks R}, one rank against R
 * ranks instead ({@link RankCheckpointBench}).
 */
@Command(name = "checkpoint", mixinStandardHelpOptions = true,
    footer = {"", "Examples:",
        "  spillway bench checkpoint --n 8192 --tile 512 --json checkpoint.json",
        "  spillway bench checkpoint --ranks 2 --n 8192 --tile 1024"},
    sortOptions = false,
    description = "Checkpoint overhead (semi-blocking vs blocking, automatic interval) and recovery time on " +
        "out-of-core LU; with --ranks R, the overhead of R ranks against one's, and the restart of R ranks after " +
        "one is killed.")
final class CheckpointBench implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Option(names = "--n", defaultValue = "16384", description = "LU order (default: ${DEFAULT-VALUE}).")
    private int n;

    @Option(names = "--tile", defaultValue = "1024", description = "Tile edge (default: ${DEFAULT-VALUE}).")
    private int tile;

    @Option(names = "--dram", defaultValue = "25%", description = "DRAM budget of a run, and of each rank " +
        "(default: ${DEFAULT-VALUE}).")
    private String dram;

    @Option(names = "--mtbf", defaultValue = "3600", description = "MTBF in seconds for the automatic interval " +
        "(default: ${DEFAULT-VALUE}).")
    private double mtbf;

    @Option(names = "--workers", description = "Workers (default: available processors).")
    private Integer workers;

    @Option(names = "--allowance", converter = ByteSize.class, defaultValue = "320m",
        description = "DRAM allowed to each child JVM, and to each rank, beyond the budget (default: " +
            "${DEFAULT-VALUE}).")
    private long allowance;

    @Option(names = "--dir", defaultValue = "spillway-data", description = "Spill and checkpoint directory " +
        "(default: ${DEFAULT-VALUE}).")
    private Path dir;

    @Option(names = "--json", paramLabel = "FILE", description = "Write the figures to FILE as JSON.")
    private Path json;

    @Option(names = "--ranks", paramLabel = "R", defaultValue = "1",
        description = {"With R > 1, compare the overhead of one rank with that of R ranks (launch -n R) holding the " +
            "same data each (LU order n·√R, rounded to a tile multiple, the same DRAM budget per rank), both " +
            "checkpointing every τ s, the interval the automatic one realised in a single run; then kill rank 1 " +
            "halfway and time the job's restart (launch --max-restarts 1) in four parts (default: " +
            "${DEFAULT-VALUE}: one rank, semi-blocking vs blocking and a single-rank recovery).",
            "The launcher and its ranks share one memory cgroup capped at R times a single run's cap; ranks need UCX."})
    private int ranks;

    @Option(names = "--repeat", paramLabel = "K", defaultValue = "1", description = "With --ranks: make each run " +
        "of the overhead comparison (one rank and R ranks, without and with checkpoints) K times, interleaved, and " +
        "compare median times (default: ${DEFAULT-VALUE}).")
    private int repeat;

    private final ObjectMapper mapper = new ObjectMapper();

    @Override
    public Integer call() throws Exception
    {
        if (ranks < 1)
        {
            throw new ParameterException(spec.commandLine(), "--ranks must be at least 1, got " + ranks);
        }
        if (repeat < 1)
        {
            throw new ParameterException(spec.commandLine(), "--repeat must be at least 1, got " + repeat);
        }
        final String noUcx = ranks > 1 ? UcxTransport.unavailableReason() : null;
        if (noUcx != null)
        {
            throw new IllegalStateException("--ranks " + ranks + " launches ranks, which need UCX: " + noUcx);
        }
        final int w = workers == null ? Runtime.getRuntime().availableProcessors() : workers;
        final Path base = Files.createDirectories(dir.toAbsolutePath().normalize().resolve("bench-checkpoint"));
        final long dataBytes = (long)n * n * Double.BYTES;
        final long budget = new DramSize.Converter().convert(dram).of(dataBytes);
        final CheckpointRuns runs = new CheckpointRuns(base, n, tile, dram, budget, allowance, w, mtbf);
        final long cap = runs.cap();
        final String noCap = MemoryCgroup.unavailableReason();
        if (noCap != null)
        {
            System.err.println("spillway: WARNING: " + noCap + ": every run is UNCAPPED, so the page cache can hold " +
                "the data and the runs are less out of core than their budget says");
        }
        runs.clearCheckpoints();
        if (ranks > 1)
        {
            return new RankCheckpointBench(runs, ranks, n, tile, budget, w, mtbf, repeat, noCap == null).run(json);
        }
        System.err.printf("spillway bench checkpoint: lu n=%d tile %d, DRAM %s, %d workers, MTBF %.0f s, cap %s%n", n,
            tile, ByteUnits.format(budget), w, mtbf, ByteUnits.format(cap));
        final JsonNode none = runs.single("none", List.of(), -1);
        final JsonNode semi = runs.single("semi-blocking", runs.checkpoints("semi", "auto", "semi_blocking"), -1);
        final String tau = realisedInterval(semi);
        final JsonNode blocking = runs.single("blocking", runs.checkpoints("blocking", tau + "s", "blocking"), -1);
        final long killAt = (long)(700 * (none.get("time_s").asDouble() + none.get("init_s").asDouble()));
        runs.single("killed", runs.checkpoints("recovery", tau + "s", "semi_blocking"), killAt);
        final JsonNode resumed = runs.single("resumed", runs.checkpoints("recovery", tau + "s", "semi_blocking"), -1);

        final double t0 = none.get("time_s").asDouble();
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("n", n);
        out.put("tile", tile);
        out.put("dram_bytes", budget);
        out.put("workers", w);
        out.put("mtbf_s", mtbf);
        out.put("interval", semi.get("checkpoint_policy").asText());
        out.put("time_none_s", t0);
        out.put("time_semi_s", semi.get("time_s").asDouble());
        out.put("time_blocking_s", blocking.get("time_s").asDouble());
        out.put("checkpoints", semi.get("checkpoints").asInt());
        out.put("blocking_checkpoints", blocking.get("checkpoints").asInt());
        out.put("overhead_pct", 100 * (semi.get("time_s").asDouble() - t0) / t0);
        out.put("blocking_overhead_pct", 100 * (blocking.get("time_s").asDouble() - t0) / t0);
        out.put("block_s", semi.get("checkpoint_block_s").asDouble());
        out.put("blocking_block_s", blocking.get("checkpoint_block_s").asDouble());
        out.put("checkpoint_total_s", semi.get("checkpoint_total_s").asDouble());
        out.put("checkpoint_bytes", semi.get("checkpoint_bytes").asLong());
        out.put("restored_generation", resumed.get("restored_generation").asLong());
        out.put("restored_tasks", resumed.get("restored_tasks").asLong());
        out.put("reexecuted_tasks", resumed.get("reexecuted_tasks").asLong());
        out.put("restore_s", resumed.get("restore_s").asDouble());
        out.put("restore_read_s", resumed.get("restore_read_s").asDouble());
        out.put("restore_verify_s", resumed.get("restore_verify_s").asDouble());
        out.put("reexecute_s", resumed.get("reexecute_s").asDouble());
        final boolean same = resumed.get("result_checksum").asText().equals(none.get("result_checksum").asText()) &&
            semi.get("result_checksum").asText().equals(none.get("result_checksum").asText()) &&
            blocking.get("result_checksum").asText().equals(none.get("result_checksum").asText());
        out.put("results_bit_identical", same);
        System.out.printf(Locale.ROOT, "semi-blocking (%s): overhead %.2f%% (%d checkpoints, tasks held %.3f s)%n" +
                "blocking at the same interval: overhead %.2f%% (%d checkpoints, tasks held %.3f s)%n" +
                "recovery: restore %.2f s (read %.2f s, verify %.2f s), re-execution of %d tasks %.2f s; " +
                "results %s%n", out.get("interval"), out.get("overhead_pct"), out.get("checkpoints"),
            out.get("block_s"), out.get("blocking_overhead_pct"), out.get("blocking_checkpoints"),
            out.get("blocking_block_s"), out.get("restore_s"), out.get("restore_read_s"), out.get("restore_verify_s"),
            out.get("reexecuted_tasks"), out.get("reexecute_s"), same ? "bit-identical" : "DIFFER");
        if (json != null)
        {
            mapper.enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), out);
        }
        runs.clearCheckpoints();
        return same ? 0 : 1;
    }

    /**
     * The interval the semi-blocking run actually used (its run time over checkpoints plus one), so the blocking run
     * takes as many checkpoints even when the automatic interval, recomputed after the first, outgrows the run.
     */
    static String realisedInterval(final JsonNode semi)
    {
        final double seconds = (semi.get("init_s").asDouble() + semi.get("time_s").asDouble()) /
            (semi.get("checkpoints").asInt() + 1);
        return String.format(Locale.ROOT, "%.3f", seconds);
    }
}
