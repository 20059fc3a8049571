package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.spillway.io.CrashPoints;
import dev.spillway.memory.ByteUnits;
import dev.spillway.rdma.TransportConfig;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code bench checkpoint --ranks R}: the checkpoint overhead of R ranks against one rank's, with the same data per
 * rank, measured side by side in one invocation, and the restart of the R ranks after one is killed.
 * <ol>
 *   <li>One rank at order n, semi-blocking at the automatic interval, which gives τ, the interval it realised.</li>
 *   <li>One rank at order n, and R ranks ({@code launch -n R run lu}) at n·√R rounded to a tile multiple, so that
 *       each rank holds about the single run's data, with the single run's DRAM budget on each: each without
 *       checkpoints and semi-blocking every τ seconds; these four runs K times ({@code --repeat}), interleaved,
 *       compared by median time. The launcher and its ranks share one memory cgroup capped at R times the single
 *       run's cap.</li>
 *   <li>The ratio of the two overheads (the target: at most {@link #TARGET_RATIO}), and of the overheads
 *       per checkpoint, since at one interval the ranks may take fewer checkpoints.</li>
 *   <li>The R ranks every τ seconds again, with rank 1 parked at the start of a task body once it has run half as
 *       many as in the failure-free run, and killed with SIGKILL; {@code launch --max-restarts 1} relaunches the
 *       job, which resumes from its newest global checkpoint. Rank 0 times the kill to resumed work in four parts;
 *       detection must take at most the failure timeout plus {@link #DETECTION_SLACK_S} s, and the result must be
 *       bit-identical to the failure-free run's.</li>
 *   <li>With {@code --buddy staged}: the R ranks checkpointing every N tasks (N a sixteenth of the ranks' summed
 *       task counts, which count each transfer twice: 8 to 16 cuts), with checkpoints on
 *       their own disks only and with buddy copies, K times interleaved, compared by median time and block time
 *       (the targets: at most {@link #BUDDY_TARGET} for both); then the buddy run killed as above with the
 *       victim's checkpoint directory deleted before the relaunch ({@code launch --lose-disks}), so that it restores
 *       from its buddy's copy.</li>
 * </ol>
 */
final class RankCheckpointBench
{
    /** The bound on (distributed overhead) / (single-rank overhead). */
    static final double TARGET_RATIO = 1.2;
    /** The bound on (time or block time with buddy copies) / (the same, checkpoints on own disks only). */
    static final double BUDDY_TARGET = 1.1;
    /** How much longer than the failure timeout detection may take. */
    static final double DETECTION_SLACK_S = 1;
    private static final String SEMI = "semi_blocking";
    /** The rank killed; every job has it. */
    private static final int VICTIM = 1;

    private final CheckpointRuns runs;
    private final int ranks;
    private final int n;
    private final int order;
    private final int tile;
    private final long budget;
    private final int workers;
    private final double mtbf;
    private final int repeat;
    private final boolean capped;
    private final boolean buddy;

    /**
     * @param budget the DRAM budget of the single run and of each rank.
     * @param repeat how many times each run of the overhead comparison is made.
     * @param capped whether the runs are under a memory cgroup.
     * @param buddy  whether to compare buddy copies ({@code --buddy staged}) with checkpoints on own disks only.
     */
    RankCheckpointBench(final CheckpointRuns runs, final int ranks, final int n, final int tile, final long budget,
        final int workers, final double mtbf, final int repeat, final boolean capped, final boolean buddy)
    {
        this.buddy = buddy;
        this.runs = runs;
        this.ranks = ranks;
        this.n = n;
        this.order = (int)Math.max(1, Math.round(n * Math.sqrt(ranks) / tile)) * tile;
        this.tile = tile;
        this.budget = budget;
        this.workers = workers;
        this.mtbf = mtbf;
        this.repeat = repeat;
        this.capped = capped;
    }

    /** Runs the measurements, prints them and writes them to {@code json} unless null; @return the exit status. */
    int run(final Path json) throws IOException, InterruptedException
    {
        System.err.printf(Locale.ROOT, "spillway bench checkpoint: lu n=%d on one rank against n=%d on %d ranks, " +
                "tile %d, DRAM %s and %d workers per rank, MTBF %.0f s, cap %s per rank%n", n, order, ranks, tile,
            ByteUnits.format(budget), workers, mtbf, ByteUnits.format(runs.cap()));
        final JsonNode auto = runs.single("semi-auto", runs.checkpoints("semi-auto", "auto", SEMI), null);
        final String every = CheckpointBench.realisedInterval(auto) + "s";
        final List<JsonNode> none = new ArrayList<>();
        final List<JsonNode> semi = new ArrayList<>();
        final List<JsonNode> ranksNone = new ArrayList<>();
        final List<JsonNode> ranksSemi = new ArrayList<>();
        for (int i = 1; i <= repeat; i++)
        {
            final String rep = repeat == 1 ? "" : "-" + i;
            none.add(runs.single("none" + rep, List.of(), null));
            semi.add(runs.single("semi-every" + rep, runs.checkpoints("semi-every" + rep, every, SEMI), null));
            ranksNone.add(runs.ranks("ranks-none" + rep, ranks, order, List.of(), List.of(), false));
            ranksSemi.add(runs.ranks("ranks-every" + rep, ranks, order, List.of(),
                runs.checkpoints("ranks-every" + rep, every, SEMI), false));
        }
        final long hit = Math.max(1, ranksSemi.get(0).get("per_rank").get(VICTIM).get("tasks").asLong() / 2);
        final String crash = VICTIM + ":" + CrashPoints.IN_TASK + ":" + hit;
        final JsonNode resumed = runs.ranks("ranks-killed", ranks, order, List.of("--max-restarts", "1",
            "--crash-at", crash), runs.checkpoints("ranks-killed", every, SEMI), true);

        final Map<String, Object> single = overhead(none, semi);
        final Map<String, Object> distributed = overhead(ranksNone, ranksSemi);
        distributed.put("global_checkpoints", Samples.median(ranksSemi, "global_checkpoints"));
        final Double ratio = ratio(single, distributed, "overhead_pct");
        final Double perCheckpoint = ratio(single, distributed, "overhead_per_checkpoint_s");
        final Map<String, Object> recovery = recovery(resumed, crash);
        final boolean singleSame = same(none, semi, List.of(auto));
        final boolean ranksSame = same(ranksNone, ranksSemi, List.of(resumed));
        final boolean detected = Boolean.TRUE.equals(recovery.get("detection_within_limit"));

        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("ranks", ranks);
        out.put("n", n);
        out.put("n_ranks", order);
        out.put("tile", tile);
        out.put("dram_bytes", budget);
        out.put("workers", workers);
        out.put("mtbf_s", mtbf);
        out.put("repeat", repeat);
        out.put("capped", capped);
        out.put("cap_bytes", runs.cap());
        out.put("cap_ranks_bytes", ranks * runs.cap());
        out.put("interval_auto", auto.get("checkpoint_policy").asText());
        out.put("auto_checkpoints", auto.get("checkpoints").asInt());
        out.put("auto_time_s", auto.get("time_s").asDouble());
        out.put("interval", every);
        out.put("single", single);
        out.put("distributed", distributed);
        out.put("overhead_ratio", ratio);
        out.put("overhead_ratio_target", TARGET_RATIO);
        out.put("overhead_per_checkpoint_ratio", perCheckpoint);
        out.put("recovery", recovery);
        final BuddyFigures buddies = buddy ? buddies(ranksNone) : null;
        final boolean buddySame = buddies == null || buddies.same();
        if (buddies != null)
        {
            out.put("buddy", buddies.all());
        }
        out.put("results_bit_identical", singleSame && ranksSame && buddySame);
        print(every, single, distributed, ratio, perCheckpoint, recovery, singleSame, ranksSame);
        if (buddies != null)
        {
            printBuddies(buddies);
        }
        if (json != null)
        {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), out);
        }
        runs.clearCheckpoints();
        return singleSame && ranksSame && buddySame && detected ? 0 : 1;
    }

    /**
     * The R ranks every N tasks with checkpoints on their own disks only and with buddy copies, then the buddy run
     * killed with the victim's directory deleted.
     */
    private BuddyFigures buddies(final List<JsonNode> ranksNone) throws IOException, InterruptedException
    {
        long tasks = 0;
        for (final JsonNode rank : ranksNone.get(0).get("per_rank"))
        {
            tasks += rank.get("tasks").asLong();
        }
        final String every = Long.toString(Math.max(1, tasks / 16));
        final List<String> staged = List.of("--buddy", "staged");
        final List<JsonNode> local = new ArrayList<>();
        final List<JsonNode> copied = new ArrayList<>();
        // Each run's checkpoints are removed after it: a buddy run keeps every rank's generations twice.
        for (int i = 1; i <= repeat; i++)
        {
            final String rep = repeat == 1 ? "" : "-" + i;
            runs.clearCheckpoints();
            local.add(runs.ranks("ranks-local" + rep, ranks, order, List.of(),
                runs.checkpoints("ranks-local" + rep, every, SEMI), false));
            runs.clearCheckpoints();
            final List<String> args = new ArrayList<>(runs.checkpoints("ranks-buddy" + rep, every, SEMI));
            args.addAll(staged);
            copied.add(runs.ranks("ranks-buddy" + rep, ranks, order, List.of(), args, false));
        }
        runs.clearCheckpoints();
        final long hit = Math.max(1, copied.get(0).get("per_rank").get(VICTIM).get("tasks").asLong() / 2);
        final String crash = VICTIM + ":" + CrashPoints.IN_TASK + ":" + hit;
        final List<String> args = new ArrayList<>(runs.checkpoints("ranks-buddy-killed", every, SEMI));
        args.addAll(staged);
        final JsonNode resumed = runs.ranks("ranks-buddy-killed", ranks, order, List.of("--max-restarts", "1",
            "--crash-at", crash, "--lose-disks", Integer.toString(VICTIM)), args, true);
        final Map<String, Object> localOnly = overhead(ranksNone, local);
        final Map<String, Object> withBuddy = overhead(ranksNone, copied);
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", "staged");
        m.put("transport", "UCX two-sided messages (tagged sends of 1 MiB chunks), as the ranks' transfers");
        m.put("interval", every + " tasks");
        m.put("local_only", localOnly);
        m.put("buddy", withBuddy);
        m.put("time_ratio", (Double)withBuddy.get("time_checkpoints_s") / (Double)localOnly.get("time_checkpoints_s"));
        m.put("block_ratio", (Double)localOnly.get("block_s") > 0 ?
            (Double)withBuddy.get("block_s") / (Double)localOnly.get("block_s") : null);
        m.put("target", BUDDY_TARGET);
        final Map<String, Object> recovery = recovery(resumed, crash + ", rank " + VICTIM + "'s checkpoint " +
            "directory deleted");
        m.put("recovery", recovery);
        final boolean same = same(ranksNone, local, copied, List.of(resumed));
        m.put("results_bit_identical", same);
        return new BuddyFigures(m, localOnly, withBuddy, recovery, same);
    }

    /** The buddy comparison: every figure, and the parts the table prints. */
    private record BuddyFigures(Map<String, Object> all, Map<String, Object> localOnly, Map<String, Object> withBuddy,
        Map<String, Object> recovery, boolean same)
    {
    }

    private void printBuddies(final BuddyFigures figures)
    {
        final Map<String, Object> b = figures.all();
        final StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "buddy copies (staged, %s), every %s, %d ranks:%n", b.get("transport"),
            b.get("interval"), ranks));
        s.append(String.format(Locale.ROOT, "%-8s %6s %10s %10s %12s %9s %5s %9s %9s%n", "", "n", "data/rank",
            "no ckpt", "checkpoints", "overhead", "ckpts", "per ckpt", "held"));
        s.append(row("own disk", figures.localOnly())).append(row("+ buddy", figures.withBuddy()));
        final Double block = (Double)b.get("block_ratio");
        final double time = (Double)b.get("time_ratio");
        s.append(String.format(Locale.ROOT, "  with buddy / own disk only: time %.3f (target ≤ %.1f: %s), " +
            "tasks held %s%n", time, BUDDY_TARGET, time <= BUDDY_TARGET ? "PASS" : "FAIL", block == null ? "n/a" :
            String.format(Locale.ROOT, "%.3f (target ≤ %.1f: %s)", block, BUDDY_TARGET, block <= BUDDY_TARGET ?
                "PASS" : "FAIL")));
        final Map<String, Object> recovery = figures.recovery();
        final JsonNode seconds = (JsonNode)recovery.get("recovery_s");
        s.append(String.format(Locale.ROOT, "  node loss: --crash-at %s; resumed from global index %s; detection " +
                "%s, relaunch %s, restore %s (fetch from the buddy included), re-execution %s%n",
            recovery.get("crash_at"), recovery.get("restored_global_index") == null ? "none (from the start)" :
                recovery.get("restored_global_index"), secs(seconds, "detection"), secs(seconds, "relaunch"),
            secs(seconds, "restore"), secs(seconds, "reexecution")));
        if (recovery.get("restored_global_index") == null)
        {
            s.append(String.format(Locale.ROOT, "  WARNING: rank %d was killed before the job's first global " +
                "checkpoint, so nothing was fetched from its buddy and restore measures nothing%n", VICTIM));
        }
        s.append(String.format(Locale.ROOT, "  results: %s%n", figures.same() ?
            "bit-identical" : "FAILED, checksums DIFFER"));
        System.out.print(s);
    }

    /**
     * @return the figures of one configuration: its runs without checkpoints against its runs with them, each figure
     *         the median over the repeats.
     */
    private static Map<String, Object> overhead(final List<JsonNode> none, final List<JsonNode> checkpointed)
    {
        final double t0 = Samples.median(none, "time_s");
        final double t = Samples.median(checkpointed, "time_s");
        final double checkpoints = Samples.median(checkpointed, "checkpoints");
        final JsonNode first = none.get(0);
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("n", first.get("n").asInt());
        m.put("data_bytes_per_rank", first.get("data_bytes").asLong() / first.path("ranks").asInt(1));
        m.put("time_none_s", t0);
        m.put("time_checkpoints_s", t);
        m.put("time_none_samples_s", samples(none, "time_s"));
        m.put("time_checkpoints_samples_s", samples(checkpointed, "time_s"));
        m.put("overhead_pct", 100 * (t - t0) / t0);
        m.put("checkpoints", checkpoints);
        m.put("overhead_per_checkpoint_s", checkpoints == 0 ? null : (t - t0) / checkpoints);
        m.put("block_s", Samples.median(checkpointed, "checkpoint_block_s"));
        m.put("checkpoint_total_s", Samples.median(checkpointed, "checkpoint_total_s"));
        m.put("checkpoint_bytes", (long)Samples.median(checkpointed, "checkpoint_bytes"));
        m.put("bytes_read_none", (long)Samples.median(none, "bytes_read"));
        m.put("cgroup_peak_bytes_none", (long)Samples.median(none, "cgroup_peak_bytes"));
        m.put("cgroup_peak_bytes_checkpoints", (long)Samples.median(checkpointed, "cgroup_peak_bytes"));
        m.put("result_checksum", first.get("result_checksum").asText());
        return m;
    }

    private static double[] samples(final List<JsonNode> runs, final String key)
    {
        return runs.stream().mapToDouble(r -> r.get(key).asDouble()).toArray();
    }

    /**
     * @return distributed over single-rank {@code key}, or null when the single rank took no checkpoint or its
     *         figure is no positive overhead.
     */
    private static Double ratio(final Map<String, Object> single, final Map<String, Object> distributed,
        final String key)
    {
        return (Double)single.get("checkpoints") > 0 && single.get(key) instanceof Double base && base > 0 &&
            distributed.get(key) instanceof Double top ? top / base : null;
    }

    /** @return rank 0's recovery figures of the killed and resumed job, with the detection check. */
    private static Map<String, Object> recovery(final JsonNode resumed, final String crash)
    {
        final JsonNode r = resumed.path("recovery");
        final JsonNode seconds = r.path("recovery_s");
        final double limit = TransportConfig.DEFAULT_FAILURE_TIMEOUT.toMillis() / 1e3 + DETECTION_SLACK_S;
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("crash_at", crash);
        m.put("killed_pid", resumed.get("killed_pid").asLong());
        m.put("incarnation", r.path("incarnation").isNumber() ? r.get("incarnation").asInt() : null);
        m.put("lost_ranks", r.path("lost_ranks"));
        m.put("restored_global_index", r.path("restored_global_index").isNumber() ?
            r.get("restored_global_index").asLong() : null);
        m.put("reexecuted_tasks_rank0", resumed.path("reexecuted_tasks").asLong());
        m.put("recovery_s", seconds);
        m.put("failure_timeout_s", TransportConfig.DEFAULT_FAILURE_TIMEOUT.toMillis() / 1e3);
        m.put("detection_limit_s", limit);
        m.put("detection_within_limit", seconds.path("detection").isNumber() &&
            seconds.get("detection").asDouble() <= limit);
        m.put("result_checksum", resumed.get("result_checksum").asText());
        return m;
    }

    /** @return whether every run's result is bit-identical to the first's. */
    @SafeVarargs
    private static boolean same(final List<JsonNode>... runs)
    {
        final String first = runs[0].get(0).get("result_checksum").asText();
        return Arrays.stream(runs).flatMap(List::stream).allMatch(r -> r.get("result_checksum").asText()
            .equals(first));
    }

    private void print(final String every, final Map<String, Object> single, final Map<String, Object> distributed,
        final Double ratio, final Double perCheckpoint, final Map<String, Object> recovery, final boolean singleSame,
        final boolean ranksSame)
    {
        final StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "%-8s %6s %10s %10s %12s %9s %5s %9s %9s%n", "", "n", "data/rank",
            "no ckpt", "every " + every.replace("s", " s"), "overhead", "ckpts", "per ckpt", "held"));
        s.append(row("1 rank", single)).append(row(ranks + " ranks", distributed));
        if (repeat > 1)
        {
            s.append(String.format("(medians of %d runs each, interleaved)%n", repeat));
        }
        s.append(ratio == null ? String.format(Locale.ROOT, "overhead ratio (%d ranks / 1 rank): n/a, the single " +
            "rank's overhead is not positive or it took no checkpoint (run longer, or checkpoint more often with a " +
            "lower --mtbf)%n", ranks) : String.format(Locale.ROOT, "overhead ratio (%d ranks / 1 rank): %.2f " +
            "(target ≤ %.1f: %s%s)%n", ranks, ratio, TARGET_RATIO, ratio <= TARGET_RATIO ? "PASS" : "FAIL",
            ratio < 0 ? "; the distributed overhead is below zero, within the runs' noise" : ""));
        s.append(String.format(Locale.ROOT, "  per checkpoint: %s (1 rank took %s checkpoints, %d ranks %s)%n",
            perCheckpoint == null ? "n/a" : String.format(Locale.ROOT, "%.2f", perCheckpoint),
            DramSize.trim((Double)single.get("checkpoints")), ranks,
            DramSize.trim((Double)distributed.get("checkpoints"))));
        final JsonNode seconds = (JsonNode)recovery.get("recovery_s");
        s.append(String.format(Locale.ROOT, "recovery: rank %d killed with SIGKILL at --crash-at %s (pid %d); " +
                "lost ranks %s; resumed from global index %s%n", VICTIM, recovery.get("crash_at"),
            recovery.get("killed_pid"), recovery.get("lost_ranks"), recovery.get("restored_global_index") == null ?
                "none (from the start)" : recovery.get("restored_global_index")));
        s.append(String.format(Locale.ROOT, "  detection %s (limit %.1f s: %s), relaunch %s, restore %s, " +
                "re-execution %s; total %s%n", secs(seconds, "detection"), recovery.get("detection_limit_s"),
            Boolean.TRUE.equals(recovery.get("detection_within_limit")) ? "OK" : "FAILED", secs(seconds, "relaunch"),
            secs(seconds, "restore"), secs(seconds, "reexecution"), secs(seconds, "total")));
        if (recovery.get("restored_global_index") == null)
        {
            s.append(String.format("  WARNING: rank %d was killed before the job's first global checkpoint, so the " +
                "job started over and restore and re-execution time nothing: checkpoint more often (lower --mtbf)%n",
                VICTIM));
        }
        s.append(String.format("results: 1 rank %s; %d ranks %s (failure-free %s, killed and resumed %s)%n",
            singleSame ? "bit-identical" : "FAILED, checksums DIFFER", ranks, ranksSame ? "bit-identical" :
                "FAILED, checksums DIFFER", distributed.get("result_checksum"), recovery.get("result_checksum")));
        System.out.print(s);
    }

    private static String row(final String label, final Map<String, Object> m)
    {
        final Object per = m.get("overhead_per_checkpoint_s");
        return String.format(Locale.ROOT, "%-8s %6d %10s %8.2f s %10.2f s %+8.2f%% %5s %9s %7.3f s%n", label,
            m.get("n"), ByteUnits.format((Long)m.get("data_bytes_per_rank")), m.get("time_none_s"),
            m.get("time_checkpoints_s"), m.get("overhead_pct"), DramSize.trim((Double)m.get("checkpoints")),
            per == null ? "-" : String.format(Locale.ROOT, "%.3f s", (Double)per), m.get("block_s"));
    }

    private static String secs(final JsonNode seconds, final String part)
    {
        return seconds.path(part).isNumber() ? String.format(Locale.ROOT, "%.2f s", seconds.get(part).asDouble()) :
            "unknown";
    }
}
