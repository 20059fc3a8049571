package dev.spillway.cli;

import dev.spillway.Spillway;
import dev.spillway.SpillwayConfig;
import dev.spillway.SpillwayStats;
import dev.spillway.checkpoint.CheckpointMode;
import dev.spillway.checkpoint.CheckpointReport;
import dev.spillway.cli.report.RunFacts;
import dev.spillway.cli.report.UtilisationReport;
import dev.spillway.io.DirectIo;
import dev.spillway.io.StoreKind;
import dev.spillway.kernels.Kernel;
import dev.spillway.kernels.RunResult;
import dev.spillway.kernels.blas.Blas;
import dev.spillway.kernels.blas.BlasCeiling;
import dev.spillway.kernels.graph.EngineGraph;
import dev.spillway.memory.ByteUnits;
import dev.spillway.ranks.GlobalCheckpoints;
import dev.spillway.ranks.RankProtocol;
import dev.spillway.ranks.RestartNeededException;
import dev.spillway.rdma.Transport;
import dev.spillway.rdma.TransportConfig;
import dev.spillway.rdma.TransportException;
import dev.spillway.resilience.Checkpoints;
import dev.spillway.resilience.buddy.BuddyCheckpoints;
import dev.spillway.resilience.interval.MtbfEstimator;
import dev.spillway.resilience.p2f.EpochPlan;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code spillway run}: one kernel out of core, verified, optionally beside a baseline. */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Run a tiled kernel as a task graph under a DRAM budget, spilling to a local directory; verify " +
        "the result and print time, rate, NVMe traffic and residual.",
        "With no options: an out-of-core LU of order 6144 with a budget of a quarter of its data.",
        "As one rank of a job (SPILLWAY_RANK etc. set, see `spillway launch`): tiles are dealt over the ranks, " +
            "--dram and --workers apply to each rank, a percentage is of the rank's share of the data, and rank 0 " +
            "reports per-rank and total figures."},
    footer = {"", "Examples:",
        "  spillway run                  (LU of order 6144, DRAM a quarter of its data)",
        "  spillway run matmul --n 8192 --tile 512 --dram 12.5%% --baseline mmap --json matmul.json",
        "  spillway run stencil --grid 512,512,512 --steps 4 --report stencil.html",
        "  spillway run matmul --n 10240 --tile 1024 --dram 3g --blas-ceiling   (in core, against dgemm alone)",
        "  spillway run lu --n 16384 --checkpoint-dir ck --checkpoint-every 60s   (the same again resumes)",
        "", "Exit status: 0 verified, 1 failure or verification failed, 2 bad arguments or a refusal before " +
        "the run (too little DRAM or disk, an unusable directory), 130/143 interrupted by SIGINT/SIGTERM."})
final class RunCommand implements Callable<Integer>
{
    /** On an interrupt: how long the runtime gets to cancel (running tasks finish), then to remove the spill files. */
    static final long CANCEL_MS = 10_000;
    /** The BLAS ceiling is the best of this many rounds of {@link #CEILING_REPEATS} products per thread. */
    private static final int CEILING_ROUNDS = 3;
    /** Products per thread in one round: about half a second on a 1024 tile. */
    private static final int CEILING_REPEATS = 20;
    static final long REMOVE_MS = 5_000;

    @Spec
    private CommandSpec spec;

    /** The refusals before the run, naming this command line; set when the command is called. */
    private RunChecks checks;
    /** When this process joined its job (ranks only): the start of its work after a relaunch. */
    private long joinedMillis;
    /** The command line and when it started; set when the command is called. */
    private Invocation invocation;
    /** The budget that shapes the submission order ({@link #orderBudget}). */
    private long order;
    /** The order recorded beside a single process's checkpoints, or null. */
    private OrderRecord orderRecord;

    @Parameters(index = "0", arity = "0..1", paramLabel = "KERNEL", defaultValue = "lu",
        description = "matmul, lu or stencil (default: ${DEFAULT-VALUE}).")
    private String kernelName;

    @Mixin
    private KernelOptions problem;

    @Option(names = "--dram", paramLabel = "BYTES|PCT", defaultValue = "25%", converter = DramSize.Converter.class,
        description = "DRAM budget: bytes (512m) or a percentage of the data (12.5%%) (default: ${DEFAULT-VALUE}).")
    private DramSize dram;

    @Option(names = "--workers", paramLabel = "W", description = "Worker threads, 1 to " +
        RunChecks.WORKERS_PER_PROCESSOR + " per available processor (default: available processors).")
    private Integer workers;

    @Option(names = "--policy", paramLabel = "f|a|p[,s][,d]", description = "IO policy letters (default: p,s,d " +
        "for lu, a,s,d otherwise).")
    private String policy;

    @Option(names = "--store", paramLabel = "KIND", defaultValue = "direct",
        description = "NVMe store: direct or chronicle (default: ${DEFAULT-VALUE}).")
    private StoreKind store;

    @Option(names = "--dir", paramLabel = "PATH", defaultValue = "spillway-data",
        description = "Directory of the NVMe tier (default: ${DEFAULT-VALUE}).")
    private Path dir;

    @Option(names = "--baseline", paramLabel = "none|incore|mmap", defaultValue = "none",
        description = "Also run the same graph in core (whole data in DRAM) or on files mapped by the OS, right " +
            "after, and report the ratio (default: ${DEFAULT-VALUE}).")
    private String baseline;

    @Option(names = "--json", paramLabel = "FILE", description = "Write the results to FILE as JSON.")
    private Path json;

    @Option(names = "--report", paramLabel = "FILE.html", description = "Write an HTML page of the run: its " +
        "timeline, DRAM in use, store bandwidth, counts and utilisation, beside its trace (FILE.trace.json unless " +
        "--trace names one).")
    private Path report;

    @Option(names = "--trace", paramLabel = "FILE", description = "Write the run's Chrome trace (tasks, IO, " +
        "phases, checkpoints, DRAM and bandwidth counters) to FILE, for Perfetto.")
    private Path trace;

    @Option(names = "--disk-rates", paramLabel = "FILE.json", description = "With --report: the --json of " +
        "`spillway bench io` on this disk, whose raw O_DIRECT rates the bandwidth chart is drawn against.")
    private Path diskRates;

    @Option(names = "--graph", hidden = true, defaultValue = "spillway",
        description = "Run the main graph on spillway or mmap (used by bench kernels).")
    private String graphKind;

    @Option(names = "--order-dram", hidden = true, converter = ByteSize.class,
        description = "Budget that shapes the submission order, when it must differ from --dram (bench kernels).")
    private Long orderDram;

    @Option(names = "--blas-ceiling", description = "matmul: after the run, time W threads each multiplying its own " +
        "tiles with single-threaded dgemm (best of 3 rounds), the most a tiled GEMM can reach, and report the " +
        "run's share of it.")
    private boolean blasCeiling;

    @Option(names = "--no-verify", hidden = true, description = "Skip verification; the checksum is still computed.")
    private boolean noVerify;

    @Option(names = "--checkpoint-dir", paramLabel = "DIR", description = "Take checkpoints into DIR; running the " +
        "same command again resumes from the newest verified one (a finished run's checkpoint is not resumed). On " +
        "ranks, rank R uses DIR/rank-R and rank 0 records the job's global checkpoint in DIR; a lost rank then " +
        "stops every rank with exit status 75, and a relaunch with a higher SPILLWAY_INCARNATION resumes.")
    private Path checkpointDir;

    @Option(names = "--checkpoint-every", paramLabel = "N|Ns|auto", defaultValue = "auto",
        description = "Checkpoint every N finished tasks, every N seconds (30s), or at the Young/Daly interval from " +
            "the measured checkpoint cost and --mtbf (default: ${DEFAULT-VALUE}). On ranks every rank cuts at the " +
            "same point: N counts the whole job's tasks, and Ns or auto are timed by rank 0.")
    private String checkpointEvery;

    @Option(names = "--mtbf", paramLabel = "SECONDS", description = "Mean time between failures for " +
        "--checkpoint-every auto (default: observed from earlier restarts in DIR, else " +
        (long)MtbfEstimator.DEFAULT_SECONDS + " s).")
    private Double mtbf;

    @Option(names = "--trace-p2f", paramLabel = "DIR", description = "On ranks: rank R writes DIR/rank-R.jsonl, " +
        "every transfer half (source, target, object, version, global index, local sequence) and every cut, in " +
        "submission order, for the past-to-future analysis; with --p2f also every send posted, cut committed and " +
        "recovery report given, for an offline recovery line. A rank started again appends.")
    private Path traceP2f;

    @Option(names = "--p2f", description = "On ranks, with --checkpoint-dir and --checkpoint-every N: past-to-future " +
        "message logging (seed 001). Every rank cuts at global indices N, 2N, ..., clusters start two epochs " +
        "apart, and a transfer from a lower cluster to a higher one is logged by its sender; a cut commits only " +
        "once its transfers are acknowledged. Under launch, a lost rank starts again alone and only the ranks " +
        "rank 0's recovery line names roll back; the others run on.")
    private boolean p2f;

    @Option(names = "--clusters", paramLabel = "P", defaultValue = "2", description = "With --p2f: contiguous " +
        "blocks of ranks whose epochs start two apart (1 to the number of ranks; 1 logs nothing; default: " +
        "${DEFAULT-VALUE}).")
    private int clusters;

    @Option(names = "--p2f-log-all", description = "With --p2f, a test and measurement mode: log every transfer, " +
        "as seed 001's \"all messages logged\" runs do.")
    private boolean p2fLogAll;

    @Option(names = "--buddy", paramLabel = "MODE", description = "On ranks, with --checkpoint-dir: staged keeps a " +
        "copy of every rank's checkpoint at a buddy rank (mutual pairs, else a ring; on different hosts when the " +
        "hosts allow), on the buddy's own disk in DIR/rank-B/buddy-of-R. A global checkpoint then counts only once " +
        "every copy is durable, and a rank whose directory lost it (a lost node and its disk) fetches it back from " +
        "its buddy. none (default) keeps checkpoints on each rank's own disk only.")
    private String buddy = "none";

    @Option(names = "--buddy-stream", paramLabel = "HOW", description = "With --buddy staged, how each rank's chunks " +
        "travel to its buddy: messages (default), two-sided; or puts, one-sided into a ring window of 4 slots the " +
        "buddy created. Ranks run UCX over TCP, where a put is emulated by the target's progress thread; there the " +
        "copies took 1.5 times as long with puts, and an LU 1.14 times (see the README). Every rank needs the same.")
    private String buddyStream;

    @Option(names = "--checkpoint-mode", hidden = true, defaultValue = "semi_blocking",
        description = "semi_blocking or blocking (bench checkpoint compares them).")
    private CheckpointMode checkpointMode;

    @Override
    public Integer call() throws Exception
    {
        checks = new RunChecks(spec.commandLine());
        invocation = Invocation.now(spec.root().commandLine().getParseResult().originalArgs());
        final String kernelKey = kernelName.toLowerCase(java.util.Locale.ROOT);
        problem.check(kernelKey, spec.commandLine());
        checks.baseline(baseline);
        final boolean distributed = RankEnvironment.present(System.getenv());
        if (distributed)
        {
            checks.onRanks(unsupportedOnRanks());
        }
        if (p2f && (!distributed || checkpointDir == null || !Checkpoints.countsTasks(checkpointEvery)))
        {
            throw new ParameterException(spec.commandLine(), "--p2f logs the transfers between ranks and keeps its " +
                "state in their checkpoints at aligned cuts: run it under spillway launch with --checkpoint-dir DIR " +
                "and --checkpoint-every N (a number of tasks)");
        }
        checkBuddy(distributed);
        if (blasCeiling && !"matmul".equals(kernelKey))
        {
            throw new ParameterException(spec.commandLine(), "--blas-ceiling compares the run with dgemm alone: it " +
                "applies to matmul, not " + kernelKey);
        }
        if (p2fLogAll && !p2f)
        {
            throw new ParameterException(spec.commandLine(), "--p2f-log-all is a mode of --p2f: add --p2f");
        }
        if (traceP2f != null && !distributed)
        {
            throw new ParameterException(spec.commandLine(), "--trace-p2f records the transfers between ranks: run " +
                "it under spillway launch");
        }
        final int w = checks.workers(workers);
        checks.checkpointDir(checkpointDir);
        if (!distributed || "0".equals(System.getenv().getOrDefault(TransportConfig.RANK_ENV, "").trim()))
        {
            checks.outputFile("--json", json);
        }
        checks.outputFile("--report", report);
        checks.outputFile("--trace", trace);
        final RunFacts.DiskRates raw = checkTraceOptions();
        final String letters = policy == null ? KernelOptions.defaultPolicy(kernelKey) : policy;
        final Blas.Choice blas = Blas.load();
        final Kernel probe;
        try
        {
            Spillway.builder().policy(letters);
            probe = problem.create(kernelKey, blas.blas(), Long.MAX_VALUE, w, 1);
        }
        catch (final IllegalArgumentException e)
        {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        if (distributed && RankEnvironment.redundancy(System.getenv()) != null && (p2f || !"none".equals(buddy)))
        {
            throw new ParameterException(spec.commandLine(), "a replicated job (launch --redundancy) keeps its " +
                "replicas' checkpoints apart and compares them; it does not run with " + (p2f ? "--p2f" : "--buddy") +
                " yet: drop it");
        }
        if (distributed && RankEnvironment.redundancy(System.getenv()) != null && checkpointDir != null &&
            !Checkpoints.countsTasks(checkpointEvery))
        {
            throw new ParameterException(spec.commandLine(), "a replicated job (launch --redundancy) needs " +
                "--checkpoint-every N, a count of tasks, not '" + checkpointEvery + "': a cut agreed at run time lies " +
                "at each process's admission front, which differs between the replicas of a rank");
        }
        final Transport transport = distributed ? RankEnvironment.join(System.getenv(), RankRun::stopOnMismatch) :
            null;
        joinedMillis = System.currentTimeMillis();
        try
        {
            return call(kernelKey, w, letters, blas, probe, transport, raw);
        }
        catch (final RuntimeException e)
        {
            final String lost = transport == null || checkpointDir == null || !fromTransport(e) ? null :
                lostPeer(transport);
            if (lost == null)
            {
                throw e;
            }
            System.err.println("spillway: rank " + transport.rank() + " stopped for a restart: " + lost + " (" +
                e.getMessage() + ")");
            System.err.println("spillway: restart needed, detected_ms=" + System.currentTimeMillis());
            return RestartNeededException.EXIT_STATUS;
        }
        finally
        {
            if (transport != null)
            {
                transport.close();
            }
        }
    }

    private Integer call(final String kernelKey, final int w, final String letters, final Blas.Choice blas,
        final Kernel probe, final Transport transport, final RunFacts.DiskRates raw) throws Exception
    {
        final int ranks = transport == null ? 1 : transport.size();
        final int rank = transport == null ? 0 : transport.rank();
        final long reserved = reserved(transport);
        final long budget = Math.max(dram.of(probe.dataBytes() / ranks) - reserved, DirectIo.ALIGNMENT);
        final Kernel kernel = problem.create(kernelKey, blas.blas(), orderBudget(budget, transport == null), w,
            ranks);
        final SpillArea area = checks.spillArea(dir);
        try (Interrupts.Action removal = Interrupts.onInterrupt("remove spill files", REMOVE_MS,
            () -> remove(area)))
        {
            final Path base = transport == null ? area.base() : area.subdirectory("rank-" + rank);
            final int[] logs = p2f ? P2fRun.capturedBytes(kernel, ranks, rank, p2fPlan(ranks), p2fLogAll) : new int[0];
            final DiskCheck disk = DiskCheck.of(store, base, kernel.footprint(), ranks, logs);
            checks.require(disk.problem(Files.getFileStore(base).getUsableSpace()));
            return call(kernelKey, w, letters, blas, kernel, budget, reserved, transport, area, disk, raw);
        }
        finally
        {
            remove(area);
        }
    }

    private Integer call(final String kernelKey, final int w, final String letters, final Blas.Choice blas,
        final Kernel kernel, final long budget, final long reserved, final Transport transport, final SpillArea area,
        final DiskCheck disk, final RunFacts.DiskRates raw) throws Exception
    {
        final int ranks = transport == null ? 1 : transport.size();
        final int rank = transport == null ? 0 : transport.rank();
        final Path base = disk.sizing().dir();
        final SpillwayConfig config = disk.apply(Spillway.builder().workers(w).dramBudget(budget).store(store)
            .storeDir(base).policy(letters));
        final DramCheck dramCheck = new DramCheck(kernel, dram, kernel.dataBytes() / ranks, budget, ranks, reserved);
        GlobalCheckpoints global = null;
        if (checkpointDir != null && transport == null)
        {
            Checkpoints.configure(config, checkpointDir, checkpointEvery, mtbf).checkpointMode(checkpointMode);
        }
        else if (checkpointDir != null)
        {
            global = RankCheckpoints.configure(config.checkpointMode(checkpointMode), transport, checkpointDir,
                checkpointEvery, mtbf, RankEnvironment.incarnation(System.getenv()),
                "none".equals(buddy) ? null : buddyStream());
        }
        final Path traceFile = trace != null ? trace : report == null ? null : UtilisationReport.traceNextTo(report);
        if (traceFile != null)
        {
            config.traceFile(traceFile);
        }

        final boolean noneLeft = reserved >= dram.of(kernel.dataBytes() / ranks);
        System.err.printf("spillway run %s%s: %s, data %s, DRAM %s, %d workers, policy %s, store %s in %s " +
                "(up to %s on disk)%n", kernel.name(), transport == null ? "" : " (rank " + rank + " of " + ranks + ")",
            RunSummary.shape(kernel), ByteUnits.format(kernel.dataBytes()), noneLeft ? "none left of --dram " + dram :
                ByteUnits.format(budget) + " (" + percent(budget * ranks, kernel.dataBytes()) + ")", w, letters,
            store.name().toLowerCase(java.util.Locale.ROOT), base, ByteUnits.format(disk.total()));
        System.err.println("spillway: BLAS " + blas.note());
        if (reserved > 0)
        {
            System.err.println("spillway: the buddy copy's buffers take " + ByteUnits.format(reserved) + " of the " +
                "rank's --dram budget; the DRAM above is what remains for data");
        }

        final RunSummary summary = new RunSummary(invocation, kernel, budget, w, letters, store, blas, baseline);
        if (transport != null)
        {
            final RankProtocol protocol = p2f ? P2fRun.protocol(transport, p2fPlan(ranks), p2fLogAll,
                base.resolve("p2f-replays")) : RankProtocol.NONE;
            return RankRun.run(transport, config, global, protocol, joinedMillis, dramCheck, checks, summary,
                !noVerify, json, traceP2f);
        }
        RunResult result = null;
        CheckpointReport checkpoints = null;
        SpillwayStats stats = null;
        long raised = 0;
        if ("mmap".equals(graphKind))
        {
            result = GraphRuns.mapped(kernel, area, w, "mmap", !noVerify);
        }
        else
        {
            try (EngineGraph graph = new EngineGraph(config.build());
                Interrupts.Action cancel = Interrupts.onInterrupt("cancel", CANCEL_MS, graph::cancel))
            {
                final String tooSmall = dramCheck.problem(graph::dramCharge);
                if (tooSmall != null && !spec.commandLine().getParseResult().hasMatchedOption("--dram"))
                {
                    raised = dramCheck.need(graph::dramCharge);
                }
                else
                {
                    checks.require(tooSmall);
                    keepOrder(budget);
                    result = GraphRuns.withProgress(kernel, graph, "", !noVerify);
                    stats = graph.stats();
                    System.err.println("spillway: " + RunStats.line(stats, result.done()));
                    checkpoints = graph.checkpointReport();
                }
            }
            if (orderRecord != null && checkpoints != null && checkpoints.enabled())
            {
                orderRecord.delete();
            }
        }
        if (raised > 0)
        {
            final PrintWriter err = spec.commandLine().getErr();
            err.printf("spillway: the default --dram %s cannot hold %s's largest task; running with --dram %s, the " +
                "least that can (pass --dram to choose)%n", dram, kernel.name(), DramCheck.bytes(raised));
            err.flush();
            dram = new DramSize(raised, Double.NaN);
            return call(kernelKey, w, letters, blas, problem.create(kernelKey, blas.blas(),
                orderBudget(raised, true), w, 1), raised, 0, null, area, disk, raw);
        }
        RunResult baselineResult = null;
        if (!"none".equals(baseline))
        {
            baselineResult = runBaseline(kernelKey, blas, budget, w, area, disk);
        }
        final long restored = checkpoints == null ? 0 : checkpoints.restoredTasks();
        final Map<String, Object> out = summary.json(result, baselineResult, restored);
        out.put("tasks", GraphRuns.phases(result.done()));
        if (stats != null)
        {
            out.put("stats", RunStats.of(stats).json());
        }
        if (checkpoints != null && checkpoints.enabled())
        {
            CheckpointSummary.put(checkpoints, out);
        }
        summary.print(result, baselineResult, restored);
        if (blasCeiling)
        {
            double ceiling = 0;
            for (int round = 0; round < CEILING_ROUNDS; round++)
            {
                ceiling = Math.max(ceiling, BlasCeiling.gflops(blas.blas(), kernel.tile(), w, CEILING_REPEATS));
            }
            final double rate = RunSummary.rate(kernel, result, restored);
            out.put("blas_ceiling_gflop_per_s", ceiling);
            out.put("run_over_blas_ceiling", rate / ceiling);
            System.out.printf(Locale.ROOT, "  BLAS ceiling: %d threads each running dgemm on its own %d² tiles, " +
                "%.1f GFLOP/s; this run %.1f GFLOP/s = %.3f of it%n", w, kernel.tile(), ceiling, rate, rate / ceiling);
        }
        if (checkpoints != null && checkpoints.enabled())
        {
            System.out.print(CheckpointSummary.describe(checkpoints));
            System.out.printf("  %s holds %s (the finished run's last generations, which a rerun does not resume); " +
                "delete it when it is no longer needed%n", checkpointDir, ByteUnits.format(Dirs.size(checkpointDir)));
        }
        RunSummary.write(json, out);
        if (report != null)
        {
            final String cap = ByteUnits.format(budget) + " (" + percent(budget, kernel.dataBytes()) + ")";
            UtilisationReport.write(report, traceFile, new RunFacts(ReportHeader.of(invocation, blas, cap),
                summary.reportLines(result, restored),
                baselineResult == null ? null : summary.comparison(result, baselineResult), raw));
            spec.commandLine().getErr().println("spillway: report written to " + report);
        }
        if (traceFile != null)
        {
            spec.commandLine().getErr().println("spillway: trace (Chrome trace events, for Perfetto) written to " +
                traceFile);
        }
        spec.commandLine().getErr().flush();
        return RunSummary.verdict(result);
    }

    /**
     * Sets {@link #order}, the budget that shapes the submission order: the resumed run's in a single process with
     * {@code --checkpoint-dir} ({@link OrderRecord}), else {@code --order-dram}, else {@code budget}.
     *
     * @return {@link #order}.
     */
    private long orderBudget(final long budget, final boolean single) throws IOException
    {
        orderRecord = single && checkpointDir != null ? OrderRecord.in(checkpointDir) : null;
        try
        {
            order = orderRecord != null ? orderRecord.choose(orderDram, budget) : orderDram != null ? orderDram :
                budget;
        }
        catch (final IllegalArgumentException e)
        {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        return order;
    }

    /** Just before the run: records {@link #order} beside a fresh run's checkpoints, or says a resume keeps it. */
    private void keepOrder(final long budget) throws IOException
    {
        final String note = orderRecord == null ? null : orderRecord.keep(order, budget);
        if (note != null)
        {
            System.err.println("spillway: " + note);
        }
    }

    /** @return whether {@code e} or a cause of it is a transport's failure (a lost peer, a timeout). */
    private static boolean fromTransport(final Throwable e)
    {
        for (Throwable t = e; t != null; t = t.getCause())
        {
            if (t instanceof TransportException)
            {
                return true;
            }
        }
        return false;
    }

    /** @return which peer of {@code transport} is lost, and why, or null while all are alive. */
    private static String lostPeer(final Transport transport)
    {
        final int r = transport.firstLost();
        final String reason = r < 0 ? null : transport.lostReason(r);
        return reason == null ? null : "rank " + r + " is lost (" + reason + ")";
    }

    /** On an interrupt: removes what the run put in {@code --dir}; nothing can be reported any more. */
    private static void remove(final SpillArea area)
    {
        try
        {
            area.remove();
        }
        catch (final IOException ignored)
        {
            // what is left is removed by the next run in this directory
        }
    }

    /** @return the first option given that one rank of a distributed run cannot do yet, or null. */
    private String unsupportedOnRanks()
    {
        return !"none".equals(baseline) ? "--baseline" : "mmap".equals(graphKind) ? "--graph mmap" :
            report != null ? "--report" : trace != null ? "--trace" : blasCeiling ? "--blas-ceiling" : null;
    }

    /**
     * Checks {@code --report}, {@code --trace} and {@code --disk-rates} together, before the run.
     *
     * @return the raw rates of {@code --disk-rates}, or null without it.
     * @throws ParameterException if the mmap graph (which writes no trace) is asked for one, both options name one
     *                            file, or {@code --disk-rates} is given without {@code --report} or cannot be read.
     */
    private RunFacts.DiskRates checkTraceOptions()
    {
        if ("mmap".equals(graphKind) && (report != null || trace != null))
        {
            throw new ParameterException(spec.commandLine(), "--graph mmap runs no Spillway engine, so it has no " +
                "trace for --report or --trace");
        }
        if (report != null && report.toAbsolutePath().equals(trace == null ? null : trace.toAbsolutePath()))
        {
            throw new ParameterException(spec.commandLine(), "--report and --trace name the same file " + report);
        }
        if (diskRates == null)
        {
            return null;
        }
        if (report == null)
        {
            throw new ParameterException(spec.commandLine(), "--disk-rates is drawn on the --report page: add " +
                "--report FILE.html");
        }
        try
        {
            return IoBench.rawRates(diskRates);
        }
        catch (final IOException e)
        {
            throw new ParameterException(spec.commandLine(), "--disk-rates " + e.getMessage() + "; nothing was run",
                e);
        }
    }

    private RunResult runBaseline(final String kernelKey, final Blas.Choice blas, final long budget, final int w,
        final SpillArea area, final DiskCheck disk) throws IOException
    {
        final Path base = area.base();
        final Kernel again = problem.create(kernelKey, blas.blas(), order, w, 1);
        if ("incore".equals(baseline))
        {
            final long all = again.dataBytes() + again.largestTaskBytes() + (64L << 20);
            final SpillwayConfig config = disk.apply(Spillway.builder().workers(w).dramBudget(all).store(store)
                .storeDir(base).policy(policy == null ? KernelOptions.defaultPolicy(kernelKey) : policy));
            try (EngineGraph graph = new EngineGraph(config.build());
                Interrupts.Action cancel = Interrupts.onInterrupt("cancel baseline", CANCEL_MS,
                    graph::cancel))
            {
                return GraphRuns.withProgress(again, graph, "in-core baseline", false);
            }
        }
        if (!MemoryCgroup.insideLimitedCgroup())
        {
            System.err.println("spillway: note: the mmap baseline runs without a memory cap here, so the page cache " +
                "may hold all the data; `spillway bench kernels` caps it with a cgroup");
        }
        return GraphRuns.mapped(again, area, w, "mmap baseline", false);
    }

    private static String percent(final long budget, final long data)
    {
        return String.format("%.1f%% of the data", 100.0 * budget / data);
    }

    /** @return DRAM a rank holds outside the engine, charged to its budget: the buddy copy's buffers. */
    private long reserved(final Transport transport)
    {
        return transport != null && "staged".equals(buddy) ? BuddyCheckpoints.dramBytes(buddyStream()) : 0;
    }

    private BuddyCheckpoints.Stream buddyStream()
    {
        return switch (buddyStream == null ? "messages" : buddyStream)
        {
            case "messages" -> BuddyCheckpoints.Stream.MESSAGES;
            case "puts" -> BuddyCheckpoints.Stream.PUTS;
            default -> throw new ParameterException(spec.commandLine(), "--buddy-stream '" + buddyStream + "' is not " +
                "a way to copy: use messages or puts");
        };
    }

    /** Refuses a {@code --buddy} mode that cannot run here. */
    private void checkBuddy(final boolean distributed)
    {
        switch (buddy)
        {
            case "none":
                if (buddyStream != null)
                {
                    throw new ParameterException(spec.commandLine(), "--buddy-stream applies only to --buddy staged");
                }
                return;
            case "staged":
                buddyStream();
                if (!distributed || checkpointDir == null)
                {
                    throw new ParameterException(spec.commandLine(), "--buddy staged copies each rank's checkpoint " +
                        "to another rank: run it under spillway launch (2 ranks or more) with --checkpoint-dir DIR");
                }
                if (p2f)
                {
                    throw new ParameterException(spec.commandLine(), "--buddy staged keeps copies of the global " +
                        "checkpoints only; --p2f, whose ranks restart alone, is not supported with it yet");
                }
                return;
            case "memory":
                throw new ParameterException(spec.commandLine(), "--buddy memory (copies in the buddy's DRAM) is " +
                    "not built yet; use --buddy staged");
            default:
                throw new ParameterException(spec.commandLine(), "--buddy '" + buddy + "' is not a mode: use " +
                    "none or staged");
        }
    }

    /** @return the {@code --p2f} plan: {@code --clusters}, aligned cuts every {@code --checkpoint-every}. */
    private EpochPlan p2fPlan(final int ranks)
    {
        return P2fRun.plan(spec.commandLine(), ranks, clusters, Long.parseLong(checkpointEvery.trim()));
    }
}
