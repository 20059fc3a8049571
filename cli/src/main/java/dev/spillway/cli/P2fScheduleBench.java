package dev.spillway.cli;

import dev.spillway.Data;
import dev.spillway.Privilege;
import dev.spillway.kernels.Kernel;
import dev.spillway.kernels.blas.JavaBlas;
import dev.spillway.kernels.dense.Gemm;
import dev.spillway.kernels.dense.Lu;
import dev.spillway.kernels.graph.ScheduleGraph;
import dev.spillway.kernels.stencil.Stencil;
import dev.spillway.ranks.Owners;
import dev.spillway.ranks.TransferSchedule;
import dev.spillway.resilience.p2f.EpochPlan;
import dev.spillway.resilience.p2f.ScheduleAnalysis;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code spillway bench p2f-schedule}: seed 001's Table I shape for Spillway's kernels, computed from their transfer
 * schedules without running them (design note §A.8). For each kernel, rank count and cluster count it works out
 * every transfer the kernel makes, the epochs a cut schedule gives both its halves, and, for every rank failing at
 * every time of a grid, the ranks the recovery line rolls back.
 */
@Command(name = "p2f-schedule", mixinStandardHelpOptions = true,
    footer = {"", "Examples:",
        "  spillway bench p2f-schedule --kernels lu,stencil --ranks 4,64 --clusters 1,2,4 --json p2f.json"},
    sortOptions = false,
    description = {"Past-to-future logging volume and ranks rolled back, computed from the kernels' transfer " +
        "schedules for up to hundreds of ranks without running them (seed 001 Table I's shape).",
        "%log: transfers logged (sent in an earlier epoch than received), by count and by bytes. %rl: ranks rolled " +
            "back, the mean over every rank failing at each of --grid times. Clusters are contiguous blocks of ranks " +
            "starting 2 epochs apart; with aligned cuts the bound is (p+1)/(2p), and coordinated checkpoints roll " +
            "back every rank, so coord/p2f is the reduction the abstract puts at \"a factor approaching 2\". " +
            "No process runs: the numbers are a model of the protocol's outcome, not a measurement."})
final class P2fScheduleBench implements Callable<Integer>
{
    @Option(names = "--kernels", split = ",", defaultValue = "lu,stencil,gemm,transpose",
        description = "Kernels: lu, stencil, gemm, transpose (a synthetic all-to-all) (default: ${DEFAULT-VALUE}).")
    private List<String> kernels;

    @Option(names = "--ranks", split = ",", defaultValue = "4,8,64,128,256",
        description = "Rank counts (default: ${DEFAULT-VALUE}).")
    private List<Integer> rankCounts;

    @Option(names = "--clusters", split = ",", defaultValue = "1,2,4,8,16",
        description = "Cluster counts; those above the rank count are skipped (default: ${DEFAULT-VALUE}).")
    private List<Integer> clusterCounts;

    @Option(names = "--cuts", split = ",", defaultValue = "aligned,independent",
        description = "Cut schedules: aligned (every rank at the same global indices) and independent (each rank " +
            "every I of its own tasks, I the busiest rank's task count over --checkpoints + 1, with a seeded jitter " +
            "of up to I/2) (default: ${DEFAULT-VALUE}).")
    private List<String> cuts;

    @Option(names = "--checkpoints", defaultValue = "4",
        description = "Checkpoints per rank over the run (default: ${DEFAULT-VALUE}).")
    private int checkpoints;

    @Option(names = "--scale", defaultValue = "4",
        description = "Tiles per process-grid dimension for lu and gemm; for the stencil and transpose, steps (all-to-all " +
            "rounds) per checkpoint interval, as in seed 001's runs, where many iterations fall between two " +
            "checkpoints (default: ${DEFAULT-VALUE}).")
    private int scale;

    @Option(names = "--grid", defaultValue = "10", description = "Failure times (default: ${DEFAULT-VALUE}).")
    private int grid;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the independent cuts' jitter.")
    private long seed;

    @Mixin
    private JsonOutput json;

    @Spec
    private CommandSpec spec;

    /** One row of the table. */
    record Row(String kernel, String cuts, int ranks, int clusters, int transfers, double loggedShare,
        double loggedByteShare, double formulaShare, double rolledBack, double bound, double reduction)
    {
    }

    @Override
    public Integer call() throws Exception
    {
        check(checkpoints >= 1, "--checkpoints must be at least 1, got " + checkpoints);
        check(grid >= 1, "--grid must be at least 1, got " + grid);
        check(scale >= 1, "--scale must be at least 1, got " + scale);
        for (final String kernel : kernels)
        {
            check(List.of("lu", "stencil", "gemm", "transpose").contains(kernel), "--kernels: unknown kernel '"
                + kernel + "' (lu, stencil, gemm, transpose)");
        }
        for (final String cut : cuts)
        {
            check(cut.equals("aligned") || cut.equals("independent"), "--cuts: unknown schedule '" + cut
                + "' (aligned or independent)");
        }
        for (final int ranks : rankCounts)
        {
            check(ranks >= 2, "--ranks must be at least 2, got " + ranks);
        }
        for (final int clusters : clusterCounts)
        {
            check(clusters >= 1, "--clusters must be at least 1, got " + clusters);
        }
        final PrintStream out = System.out;
        out.printf(Locale.ROOT, "%-10s %-11s %5s %3s %9s %7s %7s %9s %6s %6s %10s%n", "kernel", "cuts", "ranks", "p",
            "transfers", "%log", "%logB", "%log(th)", "%rl", "bound", "coord/p2f");
        final List<Row> rows = new ArrayList<>();
        for (final String kernel : kernels)
        {
            for (final int ranks : rankCounts)
            {
                final TransferSchedule schedule = schedule(kernel, ranks, scale, checkpoints + 1);
                final long interval = Math.max(1, schedule.submissions() / (checkpoints + 1));
                for (final String cut : cuts)
                {
                    for (final int clusters : clusterCounts)
                    {
                        if (clusters > ranks)
                        {
                            continue;
                        }
                        final EpochPlan plan = plan(cut, ranks, clusters, schedule, interval);
                        final ScheduleAnalysis.Figures f = new ScheduleAnalysis(schedule, plan).figures(grid);
                        final double formula = kernel.equals("transpose")
                            ? ranks * (clusters - 1.0) / (2.0 * clusters * (ranks - 1.0)) : Double.NaN;
                        final Row row = new Row(kernel, cut, ranks, clusters, f.transfers(), f.loggedShare(),
                            f.loggedByteShare(), formula, f.meanRolledBack(), f.rolledBackBound(),
                            f.meanRolledBack() == 0 ? Double.NaN : 1 / f.meanRolledBack());
                        rows.add(row);
                        out.printf(Locale.ROOT, "%-10s %-11s %5d %3d %9d %6.1f%% %6.1f%% %9s %5.1f%% %5.1f%% %10.2f%n",
                            kernel, cut, ranks, clusters, f.transfers(), 100 * f.loggedShare(),
                            100 * f.loggedByteShare(), Double.isNaN(formula) ? "-" : String.format(Locale.ROOT,
                                "%.2f%%", 100 * formula), 100 * f.meanRolledBack(), 100 * f.rolledBackBound(),
                            row.reduction());
                    }
                }
            }
        }
        json.write(rows);
        return 0;
    }

    private void check(final boolean ok, final String message)
    {
        if (!ok)
        {
            throw new ParameterException(spec.commandLine(), message);
        }
    }

    private EpochPlan plan(final String cut, final int ranks, final int clusters, final TransferSchedule schedule,
        final long interval)
    {
        if (cut.equals("aligned"))
        {
            return EpochPlan.aligned(ranks, clusters, interval);
        }
        long local = 0;
        for (int r = 0; r < ranks; r++)
        {
            local = Math.max(local, schedule.localTasksBefore(r, schedule.submissions()));
        }
        return EpochPlan.independent(ranks, clusters, Math.max(1, local / (checkpoints + 1)), seed);
    }

    /**
     * @return the transfers of {@code kernel} on {@code ranks} ranks: {@code scale} tiles per process-grid dimension
     *         (lu, gemm), or {@code scale} steps per each of {@code intervals} checkpoint intervals (stencil, transpose).
     */
    static TransferSchedule schedule(final String kernel, final int ranks, final int scale, final int intervals)
    {
        if (scale < 1)
        {
            throw new IllegalArgumentException("--scale must be at least 1, got " + scale);
        }
        final int side = scale * Math.max(Owners.gridRows(ranks), ranks / Owners.gridRows(ranks));
        final int tile = 64;
        final Kernel k = switch (kernel)
        {
            case "lu" -> new Lu(side * tile, tile, false, new JavaBlas());
            case "gemm" -> new Gemm(side * tile, tile, side, new JavaBlas());
            case "stencil" -> new Stencil(8, 8, 8 * 2 * ranks, 1, 1, 2 * ranks, 1, scale * intervals, 0);
            case "transpose" -> null;
            default -> throw new IllegalArgumentException("--kernels: unknown kernel '" + kernel
                + "' (lu, stencil, gemm, transpose)");
        };
        if (k == null)
        {
            return transpose(ranks, scale * intervals);
        }
        final ScheduleGraph graph = new ScheduleGraph(ranks);
        k.declare(graph);
        k.initialize(graph);
        k.compute(graph);
        return graph.schedule();
    }

    /**
     * An all-to-all exchange, {@code rounds} times: each rank writes its block, then each rank reads every rank's
     * block (FT's transpose in seed 001's Table I), so every ordered pair of ranks has one transfer per round.
     */
    static TransferSchedule transpose(final int ranks, final int rounds)
    {
        final TransferSchedule schedule = new TransferSchedule(ranks);
        final Data[] blocks = new Data[ranks];
        final Data[] results = new Data[ranks];
        for (int i = 0; i < ranks; i++)
        {
            blocks[i] = schedule.declare("x" + i, 4096, i);
            results[i] = schedule.declare("t" + i, 4096, i);
        }
        for (int round = 0; round < rounds; round++)
        {
            for (int i = 0; i < ranks; i++)
            {
                schedule.submit("write x" + i, new Data[] {blocks[i]}, new Privilege[] {Privilege.WRITE});
            }
            for (int j = 0; j < ranks; j++)
            {
                final Data[] data = new Data[ranks + 1];
                final Privilege[] privileges = new Privilege[ranks + 1];
                data[0] = results[j];
                privileges[0] = Privilege.WRITE;
                for (int i = 0; i < ranks; i++)
                {
                    data[i + 1] = blocks[i];
                    privileges[i + 1] = Privilege.READ;
                }
                schedule.submit("transpose " + j, data, privileges);
            }
        }
        return schedule;
    }
}
