package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code spillway bench checkpoint}: out-of-core LU run back to back in child JVMs under one memory cap: without
 * checkpoints, with semi-blocking checkpoints at the automatic interval, with blocking checkpoints at that same
 * interval, and once killed with SIGKILL and resumed, to time recovery.
 */
@Command(name = "checkpoint", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Checkpoint overhead (semi-blocking vs blocking, automatic interval) and recovery time on " +
        "out-of-core LU.")
final class CheckpointBench implements Callable<Integer>
{
    @Option(names = "--n", defaultValue = "16384", description = "LU order (default: ${DEFAULT-VALUE}).")
    private int n;

    @Option(names = "--tile", defaultValue = "1024", description = "Tile edge (default: ${DEFAULT-VALUE}).")
    private int tile;

    @Option(names = "--dram", defaultValue = "25%", description = "DRAM budget (default: ${DEFAULT-VALUE}).")
    private String dram;

    @Option(names = "--mtbf", defaultValue = "3600", description = "MTBF in seconds for the automatic interval " +
        "(default: ${DEFAULT-VALUE}).")
    private double mtbf;

    @Option(names = "--workers", description = "Workers (default: available processors).")
    private Integer workers;

    @Option(names = "--allowance", converter = ByteSize.class, defaultValue = "320m",
        description = "DRAM allowed to each child beyond the budget (default: ${DEFAULT-VALUE}).")
    private long allowance;

    @Option(names = "--dir", defaultValue = "spillway-data", description = "Spill and checkpoint directory " +
        "(default: ${DEFAULT-VALUE}).")
    private Path dir;

    @Option(names = "--json", paramLabel = "FILE", description = "Write the figures to FILE as JSON.")
    private Path json;

    private final ObjectMapper mapper = new ObjectMapper();

    @Override
    public Integer call() throws Exception
    {
        final int w = workers == null ? Runtime.getRuntime().availableProcessors() : workers;
        final Path base = Files.createDirectories(dir.toAbsolutePath().normalize().resolve("bench-checkpoint"));
        final long dataBytes = (long)n * n * Double.BYTES;
        final long budget = new DramSize.Converter().convert(dram).of(dataBytes);
        final long cap = budget + allowance;
        System.err.printf("spillway bench checkpoint: lu n=%d tile %d, DRAM %s, %d workers, MTBF %.0f s, cap %s%n", n,
            tile, ByteSize.format(budget), w, mtbf, ByteSize.format(cap));
        final JsonNode none = child(base, "none", List.of(), cap, w, -1);
        final JsonNode semi = child(base, "semi-blocking", ckpt(base, "semi", "auto", "semi_blocking"), cap, w, -1);
        final String tau = realisedInterval(semi);
        final JsonNode blocking = child(base, "blocking", ckpt(base, "blocking", tau + "s", "blocking"), cap, w, -1);
        final long killAt = (long)(700 * (none.get("time_s").asDouble() + none.get("init_s").asDouble()));
        child(base, "killed", ckpt(base, "recovery", tau + "s", "semi_blocking"), cap, w, killAt);
        final JsonNode resumed = child(base, "resumed", ckpt(base, "recovery", tau + "s", "semi_blocking"), cap, w, -1);

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
        return same ? 0 : 1;
    }

    /**
     * The interval the semi-blocking run actually used (its run time over checkpoints plus one), so the blocking run
     * takes as many checkpoints even when the automatic interval, recomputed after the first, outgrows the run.
     */
    private static String realisedInterval(final JsonNode semi)
    {
        final double seconds = (semi.get("init_s").asDouble() + semi.get("time_s").asDouble()) /
            (semi.get("checkpoints").asInt() + 1);
        return String.format(Locale.ROOT, "%.3f", seconds);
    }

    private List<String> ckpt(final Path base, final String name, final String every, final String mode)
    {
        final List<String> args = new ArrayList<>(List.of("--checkpoint-dir", base.resolve("ckpt-" + name).toString(),
            "--checkpoint-every", every, "--checkpoint-mode", mode));
        if ("auto".equals(every))
        {
            args.addAll(List.of("--mtbf", Double.toString(mtbf)));
        }
        return args;
    }

    /** Runs {@code run lu} in a child under the cap; kills it with SIGKILL after {@code killAfterMillis} if >= 0. */
    private JsonNode child(final Path base, final String label, final List<String> extra, final long cap,
        final int w, final long killAfterMillis) throws IOException, InterruptedException
    {
        final Path result = base.resolve(label + ".json");
        final Path log = base.resolve(label + ".log");
        Files.deleteIfExists(result);
        final List<String> cmd = ChildJvm.command("160m", List.of("run", "lu", "--n", Integer.toString(n), "--tile",
            Integer.toString(tile), "--dram", dram, "--workers", Integer.toString(w), "--dir",
            base.resolve("spill").toString(), "--json", result.toString()));
        cmd.addAll(extra);
        final boolean capped = MemoryCgroup.unavailableReason() == null;
        System.err.printf("spillway: %-14s ... ", label);
        if (capped)
        {
            MemoryCgroup.dropCaches();
        }
        try (MemoryCgroup group = capped ? MemoryCgroup.create("spillway-ckpt-" + ProcessHandle.current().pid() + "-" +
            label, cap) : null)
        {
            final Process p = new ProcessBuilder(capped ? group.wrap(cmd) : cmd).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
            if (killAfterMillis >= 0)
            {
                if (!p.waitFor(killAfterMillis, TimeUnit.MILLISECONDS))
                {
                    p.destroyForcibly().waitFor();
                    System.err.printf("killed with SIGKILL after %.1f s%n", killAfterMillis / 1e3);
                    return null;
                }
                throw new IllegalStateException("the run to kill ended before " + killAfterMillis + " ms; see " + log);
            }
            if (!p.waitFor(3600, TimeUnit.SECONDS) || p.exitValue() != 0 || !Files.exists(result))
            {
                p.destroyForcibly();
                throw new IllegalStateException(label + " run failed; see " + log);
            }
        }
        final JsonNode r = mapper.readTree(result.toFile());
        System.err.printf(Locale.ROOT, "%.2f s%s%n", r.get("time_s").asDouble(), r.has("checkpoints") ?
            String.format(Locale.ROOT, ", %d checkpoints, held %.3f s", r.get("checkpoints").asInt(),
                r.get("checkpoint_block_s").asDouble()) : "");
        return r;
    }
}
