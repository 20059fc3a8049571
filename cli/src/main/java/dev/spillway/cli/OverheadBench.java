package dev.spillway.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.function.IntToLongFunction;

/**
 * {@code spillway bench overhead}: per-task cost of the engine (empty tasks, and chains where each task has one
 * predecessor) against a ForkJoinPool of as many threads, interleaved in one JVM; and the latency of one link of a
 * dependent chain.
 */
@Command(name = "overhead", mixinStandardHelpOptions = true,
    footer = {"", "Examples:",
        "  spillway bench overhead --tasks 1000000 --reps 5 --json overhead.json"},
    sortOptions = false,
    description = {"Per-task overhead of the engine against a ForkJoinPool.",
        "Runs one warm-up round, then --reps rounds of: N empty tasks through the engine; W chains of tasks that " +
            "each READ_WRITE their chain's 64-byte object; N empty Runnables on ForkJoinPool(W); one chain of " +
            "--chain-tasks tasks submitted while admission is paused, timed from resume() to its end (the " +
            "latency of a dependent task), with hand-overs and without. Reports the median and min ns/task. " +
            "Targets: engine <= 1000 ns/task and <= 2x ForkJoinPool; chain latency <= 1000 ns per link."})
final class OverheadBench implements Callable<Integer>
{
    private static final int KINDS = 5;
    private static final double TARGET_NS = 1000;
    private static final double TARGET_RATIO = 2;
    private static final double TARGET_LINK_NS = 1000;

    @Spec
    private CommandSpec spec;

    @Option(names = "--tasks", paramLabel = "N", description = "Tasks per run (default: ${DEFAULT-VALUE}).")
    private int tasks = 1_000_000;

    @Option(names = "--chain-tasks", paramLabel = "N",
        description = "Tasks per chain run, over all chains (default: --tasks).")
    private Integer chainTasks;

    @Option(names = "--workers", paramLabel = "W", description = "Worker threads (default: ${DEFAULT-VALUE}).")
    private int workers = 2;

    @Option(names = "--reps", paramLabel = "R", description = "Measured rounds (default: ${DEFAULT-VALUE}).")
    private int reps = 5;

    @Mixin
    private JsonOutput json;

    /** What {@code --json} writes; the per-task figures are medians unless named min. */
    record Result(double engineNsPerTask, double chainNsPerTask, double forkjoinNsPerTask, double chainLatencyNsPerLink,
        double chainLatencyWithoutHandOversNsPerLink, int tasks, int workers, double engineMinNsPerTask,
        double chainMinNsPerTask, double forkjoinMinNsPerTask, double chainLatencyMinNsPerLink,
        double chainLatencyWithoutHandOversMinNsPerLink, int chainTasks, int reps)
    {
    }

    @Override
    public Integer call() throws IOException
    {
        require(tasks >= 1, "--tasks must be at least 1");
        require(workers >= 1, "--workers must be at least 1");
        require(reps >= 1, "--reps must be at least 1");
        final int chainLength = (chainTasks == null ? tasks : chainTasks) / workers;
        require(chainLength >= 1, "--chain-tasks must be at least --workers");

        final int chainTotal = chainLength * workers;
        final String[] names = {"engine, empty tasks", "engine, 1-dependency chains", "ForkJoinPool(" + workers + ")",
            "engine, chain latency", "engine, chain latency, no hand-overs"};
        final int[] counts = {tasks, chainTotal, tasks, chainTotal, chainTotal};
        final double[][] nsPerTask = new double[KINDS][reps];
        final Path spillDir = Files.createTempDirectory("spillway-overhead-");
        try (OverheadWorkloads w = new OverheadWorkloads(workers, spillDir);
            Progress progress = Progress.start("bench overhead", (long)KINDS * (reps + 1)))
        {
            final IntToLongFunction[] runs = {w::engineEmpty, w::chains, w::forkJoin, w::chainLatency,
                w::chainLatencyWithoutHandOvers};
            final int[] args = {tasks, chainLength, tasks, chainTotal, chainTotal};
            for (int round = 0; round <= reps; round++)
            {
                for (int k = 0; k < KINDS; k++)
                {
                    final int kind = (round + k) % KINDS;
                    final double ns = (double)runs[kind].applyAsLong(args[kind]) / counts[kind];
                    if (round > 0)
                    {
                        nsPerTask[kind][round - 1] = ns;
                    }
                    progress.step(String.format("%s%s: %.0f ns/task", names[kind],
                        round == 0 ? " (warm-up)" : " rep " + round, ns));
                }
            }
        }
        finally
        {
            Dirs.deleteTree(spillDir);
        }
        final Result r = new Result(Samples.median(nsPerTask[0]), Samples.median(nsPerTask[1]),
            Samples.median(nsPerTask[2]), Samples.median(nsPerTask[3]), Samples.median(nsPerTask[4]), tasks, workers,
            Samples.min(nsPerTask[0]), Samples.min(nsPerTask[1]), Samples.min(nsPerTask[2]), Samples.min(nsPerTask[3]),
            Samples.min(nsPerTask[4]), chainTotal, reps);
        print(names, counts, nsPerTask, r);
        json.write(r);
        return 0;
    }

    private void print(final String[] names, final int[] counts, final double[][] nsPerTask, final Result r)
    {
        final PrintWriter out = spec.commandLine().getOut();
        out.printf("spillway bench overhead: %d worker(s), median and min of %d reps after 1 warm-up%n", workers,
            reps);
        out.printf("%-38s %10s %16s %13s%n", "workload", "tasks", "median ns/task", "min ns/task");
        for (int k = 0; k < KINDS; k++)
        {
            out.printf("%-38s %10d %16.1f %13.1f%n", names[k], counts[k], Samples.median(nsPerTask[k]),
                Samples.min(nsPerTask[k]));
        }
        final double ratio = r.engineNsPerTask() / r.forkjoinNsPerTask();
        out.printf("verdict: engine %.0f ns/task (target <= %.0f): %s; engine / ForkJoinPool = %.2fx (target <= " +
                "%.0fx): %s%n", r.engineNsPerTask(), TARGET_NS, pass(r.engineNsPerTask() <= TARGET_NS), ratio,
            TARGET_RATIO, pass(ratio <= TARGET_RATIO));
        out.printf("verdict: chain latency %.0f ns per link (target <= %.0f): %s; without hand-overs %.0f ns " +
                "(%.2fx)%n", r.chainLatencyNsPerLink(), TARGET_LINK_NS,
            pass(r.chainLatencyNsPerLink() <= TARGET_LINK_NS), r.chainLatencyWithoutHandOversNsPerLink(),
            r.chainLatencyWithoutHandOversNsPerLink() / r.chainLatencyNsPerLink());
        out.flush();
    }

    private static String pass(final boolean ok)
    {
        return ok ? "PASS" : "FAIL";
    }

    private void require(final boolean ok, final String message)
    {
        if (!ok)
        {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}
