package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.io.CrashPoints;
import dev.spillway.rdma.UcxTransport;
import dev.spillway.resilience.redundancy.RedundancyDegree;
import dev.spillway.resilience.redundancy.RedundancyPlan;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * {@code spillway bench redundancy}: what replication costs, shaped like seed 004's Table 5. LU on N launched ranks
 * at each degree r ({@code launch --redundancy r}), interleaved, median times: the observed T(r)/T(1) beside eq. 1,
 * {@code 1 − α + α·r}, with α measured at r = 1 as the share of the workers' time spent waiting for data (here
 * transfers: the runs are in core). Then a replica killed halfway at 2x (the takeover) against the failure-free 2x run,
 * and the CRC32C rate (ACR's γ) with the share of a 2x run that comparing copies costs.
 */
@Command(name = "redundancy", mixinStandardHelpOptions = true, sortOptions = false,
    footer = {"", "Examples:",
        "  spillway bench redundancy --ranks 2 --n 2048 --tile 256 --repeat 2 --json red.json"},
    description = {"Replication's failure-free cost at each degree r against eq. 1 of seed 004, a takeover's cost, " +
        "and the cost of comparing copies. On a machine with fewer cores than replicas the replicas share the cores, " +
        "which the model's spare nodes do not."})
final class RedundancyBench implements Callable<Integer>
{
    private static final String HEAP = "512m";

    @Spec
    private CommandSpec spec;

    @Option(names = "--ranks", paramLabel = "N", defaultValue = "2", description = "Logical ranks (default: " +
        "${DEFAULT-VALUE}).")
    private int ranks;

    @Option(names = "--degrees", split = ",", defaultValue = "1,1.25,1.5,1.75,2,2.25,2.5,2.75,3",
        description = "Redundancy degrees (default: ${DEFAULT-VALUE}).")
    private List<String> degrees;

    @Option(names = "--n", defaultValue = "2048", description = "LU order (default: ${DEFAULT-VALUE}).")
    private int n;

    @Option(names = "--tile", defaultValue = "256", description = "Tile edge (default: ${DEFAULT-VALUE}).")
    private int tile;

    @Option(names = "--workers", defaultValue = "1", description = "Workers per process (default: ${DEFAULT-VALUE}).")
    private int workers;

    @Option(names = "--dram", defaultValue = "100%", description = "Each rank's DRAM budget, of its share of the " +
        "data (default: ${DEFAULT-VALUE}: in core, so that waiting for data is waiting for transfers).")
    private String dram;

    @Option(names = "--repeat", defaultValue = "2", description = "Runs per degree, interleaved (default: " +
        "${DEFAULT-VALUE}).")
    private int repeat;

    @Option(names = "--kill-at", paramLabel = "FRACTION", defaultValue = "0.5", description = "The takeover run " +
        "kills rank 1's second replica at this fraction of its tasks (default: ${DEFAULT-VALUE}).")
    private double killAt;

    @Option(names = "--dir", defaultValue = "spillway-data", description = "Spill directory (default: " +
        "${DEFAULT-VALUE}).")
    private Path dir;

    @Option(names = "--json", paramLabel = "FILE", description = "Write the figures to FILE as JSON.")
    private Path json;

    private final ObjectMapper mapper = new ObjectMapper();

    @Override
    public Integer call() throws Exception
    {
        if (ranks < 2 || n % tile != 0 || repeat < 1 || killAt <= 0 || killAt >= 1 || !degrees.contains("1") ||
            !degrees.contains("2"))
        {
            throw new ParameterException(spec.commandLine(), "need --ranks ≥ 2, --n a multiple of --tile, --repeat " +
                "≥ 1, --kill-at in (0, 1) and --degrees with 1 and 2; got " + ranks + ", " + n + ", " + tile + ", " +
                repeat + ", " + killAt + ", " + degrees);
        }
        degrees.forEach(RedundancyDegree::parse);
        final String noUcx = UcxTransport.unavailableReason();
        if (noUcx != null)
        {
            throw new IllegalStateException("bench redundancy launches ranks, which need UCX: " + noUcx);
        }
        final Path base = Files.createDirectories(dir.toAbsolutePath().normalize().resolve("bench-redundancy"));
        final Map<String, List<JsonNode>> runs = new LinkedHashMap<>();
        for (int k = 0; k < repeat; k++)
        {
            for (final String r : degrees)
            {
                runs.computeIfAbsent(r, x -> new ArrayList<>()).add(run(base, "r" + r + "-" + k, r, List.of()));
            }
        }
        final double alpha = alpha(runs.get("1"));
        final double t1 = median(runs.get("1"));
        final PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "LU n=%d, tile %d, %d ranks, %d worker(s) per process, --dram %s; %d run(s) per " +
            "degree, interleaved, medians; α = %.3f (the workers' time waiting for data at r = 1)%n", n, tile, ranks,
            workers, dram, repeat, alpha);
        out.printf("%-6s %-9s %-10s %-10s %-12s %s%n", "r", "processes", "T(r) s", "T(r)/T(1)", "eq. 1",
            "copies compared");
        final List<Map<String, Object>> rows = new ArrayList<>();
        for (final String r : degrees)
        {
            final double t = median(runs.get(r));
            final double model = 1 - alpha + alpha * RedundancyDegree.parse(r).value().doubleValue();
            final JsonNode last = runs.get(r).get(runs.get(r).size() - 1);
            final long compared = last.has("replication") ? last.get("replication").get("copies_compared").asLong() : 0;
            final long processes = RedundancyPlan.of(ranks, RedundancyDegree.parse(r)).processes();
            out.printf(Locale.ROOT, "%-6s %-9d %-10.2f %-10.3f %-12.3f %d%n", r, processes, t, t / t1, model, compared);
            final Map<String, Object> row = new LinkedHashMap<>();
            row.put("r", r);
            row.put("processes", processes);
            row.put("times_s", runs.get(r).stream().map(j -> j.get("time_s").asDouble()).toList());
            row.put("ratio", t / t1);
            row.put("eq1", model);
            rows.add(row);
        }
        final Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("alpha", alpha);
        figures.put("degrees", rows);
        takeover(base, runs.get("2"), out, figures);
        crcCost(runs.get("2"), out, figures);
        if (json != null)
        {
            RunSummary.write(json, figures);
        }
        return 0;
    }

    /** A replica of rank 1 killed at {@link #killAt} of its tasks at 2x, against the failure-free 2x runs. */
    private void takeover(final Path base, final List<JsonNode> free, final PrintWriter out,
        final Map<String, Object> figures) throws Exception
    {
        final long tasks = free.get(0).get("per_rank").get(1).get("stats").get("tasks_done").asLong();
        final long hit = Math.max(1, Math.round(killAt * tasks));
        final int victim = 3;
        final JsonNode killed = run(base, "takeover", "2", List.of("--crash-at", victim + ":" + CrashPoints.IN_TASK +
            ":" + hit));
        final double t = killed.get("time_s").asDouble();
        final double t2 = median(free);
        out.printf(Locale.ROOT, "takeover: slot %d (rank 1's second replica) killed at its task %d of %d: %.2f s " +
            "against %.2f s failure-free at 2x, ratio %.3f; takeovers %d, sdc_coverage at the end %.2f%n", victim, hit,
            tasks, t, t2, t / t2, killed.get("replication").get("takeovers").asLong(),
            killed.get("replication").get("sdc_coverage").asDouble());
        final Map<String, Object> takeover = new LinkedHashMap<>();
        takeover.put("killed_at_task", hit);
        takeover.put("time_s", t);
        takeover.put("failure_free_s", t2);
        takeover.put("ratio", t / t2);
        figures.put("takeover", takeover);
    }

    /** CRC32C's rate on one core, and the share of a 2x run its comparisons of copies take at rank 0. */
    private static void crcCost(final List<JsonNode> twice, final PrintWriter out, final Map<String, Object> figures)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
        for (int i = 0; i < buffer.capacity(); i += 8)
        {
            buffer.putLong(i, i * 0x9E3779B97F4A7C15L);
        }
        double best = 0;
        long sink = 0;
        for (int round = 0; round < 5; round++)
        {
            final CRC32C crc = new CRC32C();
            final long start = System.nanoTime();
            int passes = 0;
            while (System.nanoTime() - start < 200_000_000L)
            {
                crc.update(buffer.duplicate());
                passes++;
            }
            sink += crc.getValue();
            best = Math.max(best, (double)passes * buffer.capacity() / ((System.nanoTime() - start) / 1e9) / 1e9);
        }
        final JsonNode rank0 = twice.get(0).get("per_rank").get(0);
        final double crcSeconds = 2.0 * rank0.get("bytes_received").asLong() / (best * 1e9);
        final double share = crcSeconds / rank0.get("time_s").asDouble();
        out.printf(Locale.ROOT, "digest cost: CRC32C %.2f GB/s on one core (γ); at 2x rank 0's replica checks two " +
            "copies of %d received bytes: %.4f s, %.2f %% of its run%s%n", best, rank0.get("bytes_received").asLong(),
            crcSeconds, 100 * share, sink == 0 ? " (every checksum was 0)" : "");
        figures.put("crc32c_gb_per_s", best);
        figures.put("crc_share_at_2x", share);
    }

    /** @return the share of the workers' time spent waiting for data, over every rank of the runs at r = 1. */
    private static double alpha(final List<JsonNode> plain)
    {
        double waiting = 0;
        double busy = 0;
        for (final JsonNode run : plain)
        {
            for (final JsonNode rank : run.get("per_rank"))
            {
                waiting += rank.get("stats").get("worker_waiting_for_data_ms").asDouble();
                busy += rank.get("stats").get("worker_busy_ms").asDouble();
            }
        }
        return waiting / (waiting + busy);
    }

    private static double median(final List<JsonNode> runs)
    {
        final double[] t = runs.stream().mapToDouble(j -> j.get("time_s").asDouble()).sorted().toArray();
        return t.length % 2 == 1 ? t[t.length / 2] : (t[t.length / 2 - 1] + t[t.length / 2]) / 2;
    }

    /**
     * Runs {@code launch -n N [--redundancy r] <launch> run lu ...} in a child JVM, killing with SIGKILL the process
     * whose crash point it reports, and reads rank 0's figures.
     */
    private JsonNode run(final Path base, final String label, final String r, final List<String> launch)
        throws IOException, InterruptedException
    {
        final Path result = base.resolve(label + ".json");
        final Path log = base.resolve(label + ".log");
        Files.deleteIfExists(result);
        final List<String> args = new ArrayList<>(List.of("launch", "-n", Integer.toString(ranks), "--redundancy", r));
        args.addAll(launch);
        args.addAll(List.of("run", "lu", "--n", Integer.toString(n), "--tile", Integer.toString(tile), "--dram", dram,
            "--workers", Integer.toString(workers), "--dir", base.resolve("spill").toString(), "--json",
            result.toString()));
        System.err.printf("spillway: %-14s ... ", label);
        final Process p = new ProcessBuilder(ChildJvm.command(HEAP, List.of(), args)).redirectErrorStream(true).start();
        final AtomicLong killed = new AtomicLong(-1);
        final Consumer<String> killer = CheckpointRuns.killer(killed);
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            PrintWriter logged = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                logged.println(line);
                killer.accept(line);
            }
        }
        if (!p.waitFor(3600, TimeUnit.SECONDS) || p.exitValue() != 0 || !Files.exists(result) ||
            !launch.isEmpty() && killed.get() < 0)
        {
            throw new IllegalStateException(label + " failed (exit " + (p.isAlive() ? "none" : p.exitValue()) +
                (launch.isEmpty() || killed.get() >= 0 ? "" : ", no crash point reached") + "); see " + log);
        }
        final JsonNode figures = mapper.readTree(result.toFile());
        System.err.printf(Locale.ROOT, "%.2f s%n", figures.get("time_s").asDouble());
        return figures;
    }
}
