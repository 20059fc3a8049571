package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.spillway.io.CrashPoints;
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
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;

/**
 * {@code spillway bench p2f-recovery}: what a {@code kill -9} costs with past-to-future logging against the global
 * restart. For every rank in turn, the same LU run on R ranks is killed at the same task of that rank: once with
 * aligned checkpoints only (the job starts again whole) and once with {@code --p2f} for each cluster count. Reported:
 * the share of ranks rolled back (from rank 0's {@code recovery_sessions}; a relaunch of the whole job counts as all)
 * against {@code (p+1)/(2p)}, and each run's wall time beyond the failure-free run of its configuration.
 */
@Command(name = "p2f-recovery", mixinStandardHelpOptions = true,
    footer = {"", "Examples:",
        "  spillway bench p2f-recovery --ranks 4 --n 8192 --tile 1024 --clusters 2 --json rec.json"},
    sortOptions = false,
    description = {"Recovery under past-to-future logging (run --p2f) against the global restart: LU on R ranks, " +
        "each rank killed in turn at the same task; the ranks rolled back and the time lost to the kill.",
        "Example: spillway bench p2f-recovery --ranks 4 --n 8192 --clusters 2,4"})
final class P2fRecoveryBench implements Callable<Integer>
{
    private static final String SEMI = "semi_blocking";

    @Spec
    private CommandSpec spec;

    @Mixin
    private P2fBenchOptions job;

    @Option(names = "--clusters", split = ",", defaultValue = "2,4", description = "Cluster counts of the --p2f " +
        "runs (default: ${DEFAULT-VALUE}).")
    private List<Integer> clusters;

    @Option(names = "--at", paramLabel = "FRACTION", defaultValue = "0.6", description = "Kill each victim at this " +
        "fraction of its tasks (default: ${DEFAULT-VALUE}).")
    private double at;

    @Override
    public Integer call() throws Exception
    {
        final int ranks = job.ranks;
        if (job.problem() != null || at <= 0 || at >= 1 || clusters.stream().anyMatch(c -> c < 1 || c > ranks))
        {
            throw new ParameterException(spec.commandLine(), job.problem() != null ? job.problem() : "need --at " +
                "between 0 and 1 and --clusters from 1 to the ranks; got " + at + " and " + clusters);
        }
        final String noUcx = UcxTransport.unavailableReason();
        if (noUcx != null)
        {
            throw new IllegalStateException("bench p2f-recovery launches ranks, which need UCX: " + noUcx);
        }
        final Path base = Files.createDirectories(job.dir.toAbsolutePath().normalize().resolve("bench-p2f-recovery"));
        final int n = job.n;
        final long budget = job.budget();
        final CheckpointRuns runs = job.runs(base);
        final long cut = job.cutEvery();
        final String noCap = MemoryCgroup.unavailableReason();
        if (noCap != null)
        {
            System.err.println("spillway: WARNING: " + noCap + ": the runs are UNCAPPED");
        }
        System.err.printf(Locale.ROOT, "spillway bench p2f-recovery: lu n=%d tile %d on %d ranks, DRAM %s per rank, " +
            "aligned cuts every %d submissions, kills at %.0f%% of the victim's tasks%n", n, job.tile, ranks,
            ByteUnits.format(budget), cut, 100 * at);
        runs.clearCheckpoints();
        // By name, the clusters of the --p2f runs; 1 (the bound is then 100 %) for the global restart, without --p2f.
        final Map<String, Integer> configurations = new LinkedHashMap<>();
        configurations.put("global-restart", 1);
        for (final int p : clusters)
        {
            configurations.put("p2f-" + p + "-clusters", p);
        }
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("ranks", ranks);
        out.put("n", n);
        out.put("tile", job.tile);
        out.put("dram_bytes_per_rank", budget);
        out.put("cut_every", cut);
        out.put("kill_at", at);
        out.put("capped", noCap == null);
        String checksum = null;
        boolean same = true;
        System.out.printf(Locale.ROOT, "%-18s %7s %10s %10s %12s %12s%n", "configuration", "victim", "rolled back",
            "wall s", "lost s", "bound");
        for (final Map.Entry<String, Integer> c : configurations.entrySet())
        {
            final String name = c.getKey();
            final int p = c.getValue();
            final List<String> flags = name.equals("global-restart") ? List.of() :
                List.of("--p2f", "--clusters", Integer.toString(p));
            final List<String> extra = new ArrayList<>(runs.checkpoints(name + "-plain", Long.toString(cut), SEMI));
            extra.addAll(flags);
            long start = System.nanoTime();
            final JsonNode plain = runs.ranks(name + "-plain", ranks, n, List.of(), extra, false);
            final double plainWall = (System.nanoTime() - start) / 1e9;
            checksum = checksum == null ? plain.get("result_checksum").asText() : checksum;
            same &= checksum.equals(plain.get("result_checksum").asText()) && plain.get("verified").asBoolean();
            runs.clearCheckpoints();
            final List<Map<String, Object>> kills = new ArrayList<>();
            double rolledBack = 0;
            double lost = 0;
            long reexecuted = 0;
            for (int victim = 0; victim < ranks; victim++)
            {
                final long hit = Math.max(1, Math.round(at * plain.get("per_rank").get(victim).get("tasks").asLong()));
                final String label = name + "-kill-" + victim;
                final List<String> killed = new ArrayList<>(runs.checkpoints(label, Long.toString(cut), SEMI));
                killed.addAll(flags);
                start = System.nanoTime();
                final JsonNode r = runs.ranks(label, ranks, n, List.of("--max-restarts", "3", "--crash-at",
                    victim + ":" + CrashPoints.IN_TASK + ":" + hit), killed, true);
                final double wall = (System.nanoTime() - start) / 1e9;
                runs.clearCheckpoints();
                same &= checksum.equals(r.get("result_checksum").asText()) && r.get("verified").asBoolean();
                final int back = rolledBack(r);
                rolledBack += (double) back / ranks;
                lost += wall - plainWall;
                long redone = 0;
                for (final JsonNode rank : r.get("per_rank"))
                {
                    redone += rank.get("reexecuted_tasks").asLong();
                }
                reexecuted += redone;
                final Map<String, Object> row = new LinkedHashMap<>();
                row.put("victim", victim);
                row.put("at_task", hit);
                row.put("ranks_rolled_back", back);
                row.put("wall_s", wall);
                row.put("lost_s", wall - plainWall);
                row.put("reexecuted_tasks", redone);
                kills.add(row);
                System.out.printf(Locale.ROOT, "%-18s %7d %10d %10.2f %12.2f%n", name, victim, back, wall,
                    wall - plainWall);
            }
            final Map<String, Object> summary = new LinkedHashMap<>();
            summary.put("failure_free_wall_s", plainWall);
            summary.put("mean_rolled_back_share", rolledBack / ranks);
            summary.put("rolled_back_bound", (p + 1) / (2.0 * p));
            summary.put("mean_lost_s", lost / ranks);
            summary.put("reexecuted_tasks", reexecuted);
            summary.put("kills", kills);
            out.put(name, summary);
            System.out.printf(Locale.ROOT, "%-18s %7s %9.1f%% %10.2f %12.2f %11.1f%%%n", name, "mean",
                100 * rolledBack / ranks, plainWall, lost / ranks, 100 * (p + 1) / (2.0 * p));
        }
        final double global = ((Number) ((Map<?, ?>) out.get("global-restart")).get("mean_lost_s")).doubleValue();
        final double globalRedone = Math.max(1, ((Number) ((Map<?, ?>) out.get("global-restart"))
            .get("reexecuted_tasks")).doubleValue());
        for (final int p : clusters)
        {
            final Map<?, ?> row = (Map<?, ?>) out.get("p2f-" + p + "-clusters");
            System.out.printf(Locale.ROOT, "p2f, %d clusters: time lost to a kill %.3f of the global restart's%n", p,
                ((Number) row.get("mean_lost_s")).doubleValue() / global);
            final double redone = ((Number) row.get("reexecuted_tasks")).doubleValue() / globalRedone;
            final double bound = ((Number) row.get("mean_rolled_back_share")).doubleValue() + 0.10;
            System.out.printf(Locale.ROOT, "p2f, %d clusters: tasks re-executed %.3f of the global restart's " +
                "(target: at most the mean share rolled back + 0.10 = %.3f)%n", p, redone, bound);
        }
        out.put("results_bit_identical", same);
        System.out.println(same ? "every run verified, with the same result checksum" :
            "RESULTS DIFFER or a run was not verified: see " + base);
        if (job.json != null)
        {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(job.json.toFile(), out);
        }
        return same ? 0 : 1;
    }

    /** @return how many ranks a run's kill rolled back: those rank 0's line named, or all on a whole relaunch. */
    private int rolledBack(final JsonNode r)
    {
        final JsonNode sessions = r.path("recovery_sessions");
        if (!sessions.isArray() || sessions.isEmpty())
        {
            return job.ranks;
        }
        final TreeSet<String> back = new TreeSet<>();
        for (final JsonNode s : sessions)
        {
            for (final Iterator<String> it = s.get("rolled_back_to").fieldNames(); it.hasNext(); )
            {
                back.add(it.next());
            }
        }
        return back.size();
    }
}
