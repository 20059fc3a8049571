package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.spillway.io.CrashPoints;
import dev.spillway.memory.ByteUnits;
import dev.spillway.rdma.UcxTransport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code spillway bench checkpoint}: out-of-core LU run back to back in child JVMs under one memory cap: without
 * checkpoints, then semi-blocking and blocking at one fixed interval that gives each run at least three checkpoints,
 * for the cost per checkpoint of each ({@link CheckpointCosts}), and once killed with SIGKILL as it commits a
 * checkpoint and resumed, to time a recovery that restores the one before. With {@code --ranks R}, one rank against
 * R ranks instead ({@link RankCheckpointBench}).
 */
@Command(name = "checkpoint", mixinStandardHelpOptions = true,
    footer = {"", "Examples:",
        "  spillway bench checkpoint --n 8192 --tile 512 --repeat 3 --json checkpoint.json",
        "  spillway bench checkpoint --ranks 2 --n 8192 --tile 1024"},
    sortOptions = false,
    description = "Cost per checkpoint, semi-blocking against blocking at one fixed interval (at least 3 " +
        "checkpoints a run), the overhead Daly's optimal interval then predicts, and recovery time, on out-of-core " +
        "LU; with --ranks R, the overhead of R ranks against one's, and the restart of R ranks after one is killed.")
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

    @Option(names = "--mtbf", defaultValue = "3600", description = "MTBF in seconds: of Daly's optimal interval for " +
        "the measured cost per checkpoint, and of the automatic interval with --ranks (default: ${DEFAULT-VALUE}).")
    private double mtbf;

    @Option(names = "--checkpoints", paramLabel = "K", defaultValue = "4", description = "One rank: checkpoint " +
        "both modes every T/(K+1) s, T the first run without checkpoints (init and compute), so that each takes " +
        "about K; a run with fewer than 3 fails the bench (default: ${DEFAULT-VALUE}).")
    private int checkpoints;

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

    @Option(names = "--repeat", paramLabel = "K", defaultValue = "1", description = "Make each run of the overhead " +
        "comparison (none, semi-blocking and blocking; with --ranks, one rank and R ranks without and with " +
        "checkpoints) K times, interleaved, and compare medians (default: ${DEFAULT-VALUE}).")
    private int repeat;

    @Option(names = "--buddy", paramLabel = "MODE", description = "With --ranks R: also compare the R ranks " +
        "checkpointing with buddy copies (staged: run --buddy staged) against checkpoints on their own disks only, " +
        "and restore a killed rank whose checkpoint directory was deleted from its buddy's copy.")
    private String buddy;

    private final ObjectMapper mapper = new ObjectMapper();

    @Override
    public Integer call() throws Exception
    {
        if (ranks < 1)
        {
            throw new ParameterException(spec.commandLine(), "--ranks must be at least 1, got " + ranks);
        }
        if (checkpoints < 3)
        {
            throw new ParameterException(spec.commandLine(), "--checkpoints must be at least 3, got " + checkpoints);
        }
        if (repeat < 1)
        {
            throw new ParameterException(spec.commandLine(), "--repeat must be at least 1, got " + repeat);
        }
        if (buddy != null && (!"staged".equals(buddy) || ranks < 2))
        {
            throw new ParameterException(spec.commandLine(), "--buddy " + buddy + ": only --buddy staged is built, " +
                "and it needs --ranks 2 or more");
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
            return new RankCheckpointBench(runs, ranks, n, tile, budget, w, mtbf, repeat, noCap == null,
                buddy != null).run(json);
        }
        System.err.printf("spillway bench checkpoint: lu n=%d tile %d, DRAM %s, %d workers, cap %s, %d run(s) of " +
            "each kind%n", n, tile, ByteUnits.format(budget), w, ByteUnits.format(cap), repeat);
        final List<JsonNode> none = new ArrayList<>(List.of(runs.single("none-1", List.of(), null)));
        final String tau = String.format(Locale.ROOT, "%.3f", (none.get(0).get("init_s").asDouble() +
            none.get(0).get("time_s").asDouble()) / (checkpoints + 1));
        final List<JsonNode> semi = new ArrayList<>();
        final List<JsonNode> blocking = new ArrayList<>();
        for (int i = 1; i <= repeat; i++)
        {
            if (i > 1)
            {
                none.add(runs.single("none-" + i, List.of(), null));
            }
            semi.add(runs.single("semi-blocking-" + i, runs.checkpoints("semi", tau + "s", "semi_blocking"), null));
            blocking.add(runs.single("blocking-" + i, runs.checkpoints("blocking", tau + "s", "blocking"), null));
        }
        // Killed as it commits the next-to-last checkpoint every semi-blocking run took: those before are durable,
        // so the resumed run has a generation to restore and work after its cut to re-execute.
        final long last = semi.stream().mapToLong(r -> r.get("checkpoints").asLong()).min().orElse(0);
        final CheckpointRuns.Kill kill = new CheckpointRuns.Kill(CrashPoints.MANIFEST_RENAME, Math.max(2, last - 1));
        runs.single("killed", runs.checkpoints("recovery", tau + "s", "semi_blocking"), kill);
        final JsonNode resumed = runs.single("resumed", runs.checkpoints("recovery", tau + "s", "semi_blocking"),
            null);

        final CheckpointCosts costs = new CheckpointCosts(runTime(none), runTime(semi),
            Samples.median(semi, "checkpoints"), runTime(blocking), Samples.median(blocking, "checkpoints"),
            Samples.medianDifferenceError(runTimes(none), runTimes(semi)),
            Samples.medianDifferenceError(runTimes(none), runTimes(blocking)),
            Samples.studentT975(Math.max(1, 2 * repeat - 2)), mtbf);
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("n", n);
        out.put("tile", tile);
        out.put("dram_bytes", budget);
        out.put("workers", w);
        out.put("repeat", repeat);
        out.put("interval_s", Double.parseDouble(tau));
        costs.put(out);
        out.put("block_s", Samples.median(semi, "checkpoint_block_s"));
        out.put("blocking_block_s", Samples.median(blocking, "checkpoint_block_s"));
        out.put("checkpoint_total_s", Samples.median(semi, "checkpoint_total_s"));
        out.put("checkpoint_bytes", semi.get(0).get("checkpoint_bytes").asLong());
        out.put("killed_at", kill.toString());
        out.put("restored_generation", resumed.get("restored_generation").asLong());
        out.put("restored_tasks", resumed.get("restored_tasks").asLong());
        out.put("reexecuted_tasks", resumed.get("reexecuted_tasks").asLong());
        out.put("restore_s", resumed.get("restore_s").asDouble());
        out.put("restore_read_s", resumed.get("restore_read_s").asDouble());
        out.put("restore_verify_s", resumed.get("restore_verify_s").asDouble());
        out.put("reexecute_s", resumed.get("reexecute_s").asDouble());
        final String reference = none.get(0).get("result_checksum").asText();
        final boolean same = Stream.of(none, semi, blocking, List.of(resumed)).flatMap(List::stream)
            .allMatch(r -> r.get("result_checksum").asText().equals(reference));
        out.put("results_bit_identical", same);
        final boolean restored = resumed.get("restored_generation").asLong() >= 0;
        out.put("recovery_restored_a_checkpoint", restored);
        System.out.print(costs.describe(Double.parseDouble(tau)));
        System.out.printf(Locale.ROOT, "recovery (killed at %s): %s; results %s%n", kill, restored ?
                String.format(Locale.ROOT, "restored generation %d in %.2f s (read %.2f s, verify %.2f s), " +
                    "re-execution of %d tasks %.2f s", resumed.get("restored_generation").asLong(),
                    resumed.get("restore_s").asDouble(), resumed.get("restore_read_s").asDouble(),
                    resumed.get("restore_verify_s").asDouble(), resumed.get("reexecuted_tasks").asLong(),
                    resumed.get("reexecute_s").asDouble()) :
                "FAILED: nothing was restored, although the run was killed after a checkpoint committed",
            same ? "bit-identical" : "DIFFER");
        if (json != null)
        {
            mapper.enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), out);
        }
        runs.clearCheckpoints();
        return same && restored && costs.enoughCheckpoints() ? 0 : 1;
    }

    /**
     * @return the median run time, inputs' generation included: a cut may fall while the inputs are written, and its
     *         checkpoint counts in δ either way.
     */
    static double runTime(final List<JsonNode> runs)
    {
        return Samples.median(runTimes(runs));
    }

    private static double[] runTimes(final List<JsonNode> runs)
    {
        return runs.stream().mapToDouble(r -> r.get("init_s").asDouble() + r.get("time_s").asDouble()).toArray();
    }

    /**
     * The interval a run at the automatic interval actually used (its run time over checkpoints plus one), so that
     * later runs take as many checkpoints even when the automatic interval, recomputed after the first, outgrows
     * the run.
     */
    static String realisedInterval(final JsonNode semi)
    {
        final double seconds = (semi.get("init_s").asDouble() + semi.get("time_s").asDouble()) /
            (semi.get("checkpoints").asInt() + 1);
        return String.format(Locale.ROOT, "%.3f", seconds);
    }
}
