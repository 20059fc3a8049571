package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.spillway.memory.ByteUnits;
import dev.spillway.rdma.UcxTransport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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

/**
 * {@code spillway bench p2f}: the failure-free cost of past-to-future logging on {@code launch -n R run lu}, every
 * configuration with the same aligned checkpoints, run K times interleaved under one memory cap and compared by
 * median time against the runs without the protocol.
 */
@Command(name = "p2f", mixinStandardHelpOptions = true,
    footer = {"", "Examples:",
        "  spillway bench p2f --ranks 2 --n 8192 --tile 1024 --repeat 3 --json p2f-bench.json"},
    sortOptions = false,
    description = {"Failure-free overhead of past-to-future logging (run --p2f) on LU over R ranks: the same " +
        "aligned checkpoints without the protocol, with it and nothing logged (--clusters 1), with the transfers " +
        "to the higher of two clusters logged (--clusters 2), and with every transfer logged (--p2f-log-all).",
        "Example: spillway bench p2f --ranks 4 --n 8192 --repeat 3"})
final class P2fOverheadBench implements Callable<Integer>
{
    private static final String SEMI = "semi_blocking";

    @Spec
    private CommandSpec spec;

    @Mixin
    private P2fBenchOptions job;

    @Option(names = "--repeat", paramLabel = "K", defaultValue = "3", description = "Runs of each configuration, " +
        "interleaved; medians are compared (default: ${DEFAULT-VALUE}).")
    private int repeat;

    @Override
    public Integer call() throws Exception
    {
        if (job.problem() != null || repeat < 1)
        {
            throw new ParameterException(spec.commandLine(), job.problem() != null ? job.problem() :
                "need --repeat of at least 1, got " + repeat);
        }
        final String noUcx = UcxTransport.unavailableReason();
        if (noUcx != null)
        {
            throw new IllegalStateException("bench p2f launches ranks, which need UCX: " + noUcx);
        }
        final Path base = Files.createDirectories(job.dir.toAbsolutePath().normalize().resolve("bench-p2f"));
        final int ranks = job.ranks;
        final int n = job.n;
        final long budget = job.budget();
        final CheckpointRuns runs = job.runs(base);
        final long cut = job.cutEvery();
        final String noCap = MemoryCgroup.unavailableReason();
        if (noCap != null)
        {
            System.err.println("spillway: WARNING: " + noCap + ": the runs are UNCAPPED");
        }
        System.err.printf(Locale.ROOT, "spillway bench p2f: lu n=%d tile %d on %d ranks, DRAM %s and %d worker(s) " +
            "per rank, aligned cuts every %d submissions, %d repeat(s)%n", n, job.tile, ranks, ByteUnits.format(budget),
            job.workers, cut, repeat);
        runs.clearCheckpoints();
        final Map<String, List<String>> configurations = new LinkedHashMap<>();
        configurations.put("checkpoints", List.of());
        configurations.put("p2f-nothing-logged", List.of("--p2f", "--clusters", "1"));
        configurations.put("p2f-2-clusters", List.of("--p2f", "--clusters", "2"));
        configurations.put("p2f-all-logged", List.of("--p2f", "--clusters", "1", "--p2f-log-all"));
        final Map<String, List<JsonNode>> results = new LinkedHashMap<>();
        for (int i = 1; i <= repeat; i++)
        {
            for (final Map.Entry<String, List<String>> c : configurations.entrySet())
            {
                final String label = c.getKey() + "-" + i;
                final List<String> extra = new ArrayList<>(runs.checkpoints(label, Long.toString(cut), SEMI));
                extra.addAll(c.getValue());
                results.computeIfAbsent(c.getKey(), k -> new ArrayList<>()).add(runs.ranks(label, ranks, n,
                    List.of(), extra, false));
            }
            runs.clearCheckpoints();
        }
        final double base0 = Samples.median(results.get("checkpoints"), "time_s");
        final String checksum = results.get("checkpoints").get(0).get("result_checksum").asText();
        boolean same = true;
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("ranks", ranks);
        out.put("n", n);
        out.put("tile", job.tile);
        out.put("dram_bytes_per_rank", budget);
        out.put("workers_per_rank", job.workers);
        out.put("cut_every", cut);
        out.put("repeat", repeat);
        out.put("capped", noCap == null);
        System.out.printf(Locale.ROOT, "%-20s %9s %9s %10s %12s %9s%n", "configuration", "median s", "vs ckpt",
            "logged", "logged bytes", "acks held");
        for (final Map.Entry<String, List<JsonNode>> e : results.entrySet())
        {
            final JsonNode first = e.getValue().get(0);
            final double time = Samples.median(e.getValue(), "time_s");
            final JsonNode p2f = first.path("p2f");
            final Map<String, Object> row = new LinkedHashMap<>();
            row.put("time_s", time);
            row.put("time_samples_s", e.getValue().stream().mapToDouble(r -> r.get("time_s").asDouble()).toArray());
            row.put("ratio", time / base0);
            row.put("checkpoints", first.get("checkpoints").asInt());
            row.put("logged_share", p2f.path("logged_share").asDouble(0));
            row.put("logged_bytes", p2f.path("logged_bytes").asLong(0));
            row.put("commits_waiting_for_acks", p2f.path("commits_waiting_for_acks").asLong(0));
            out.put(e.getKey(), row);
            for (final JsonNode r : e.getValue())
            {
                same &= checksum.equals(r.get("result_checksum").asText()) && r.get("verified").asBoolean();
            }
            System.out.printf(Locale.ROOT, "%-20s %9.2f %9.3f %9.1f%% %12s %9d%n", e.getKey(), time, time / base0,
                100 * p2f.path("logged_share").asDouble(0), ByteUnits.format(p2f.path("logged_bytes").asLong(0)),
                p2f.path("commits_waiting_for_acks").asLong(0));
        }
        out.put("results_bit_identical", same);
        System.out.println(same ? "every run verified, with the same result checksum" :
            "RESULTS DIFFER or a run was not verified: see " + base);
        if (job.json != null)
        {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(job.json.toFile(), out);
        }
        runs.clearCheckpoints();
        return same ? 0 : 1;
    }
}
