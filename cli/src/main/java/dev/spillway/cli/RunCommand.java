package dev.spillway.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.spillway.Spillway;
import dev.spillway.SpillwayConfig;
import dev.spillway.io.StoreKind;
import dev.spillway.kernels.Kernel;
import dev.spillway.kernels.KernelRunner;
import dev.spillway.kernels.RunResult;
import dev.spillway.kernels.blas.Blas;
import dev.spillway.kernels.graph.EngineGraph;
import dev.spillway.kernels.graph.GraphProgress;
import dev.spillway.kernels.mmap.MappedGraph;
import dev.spillway.kernels.graph.TileGraph;
import dev.spillway.ranks.DistributedSpillway;
import dev.spillway.rdma.Transport;
import dev.spillway.cli.report.UtilisationReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import dev.spillway.checkpoint.CheckpointMode;
import dev.spillway.checkpoint.CheckpointReport;
import dev.spillway.resilience.Checkpoints;
import dev.spillway.resilience.interval.MtbfEstimator;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
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
    footer = {"", "Exit status: 0 verified, 1 failure or verification failed, 2 bad arguments or a refusal before " +
        "the run (too little DRAM or disk, an unusable directory), 130/143 interrupted by SIGINT/SIGTERM."})
final class RunCommand implements Callable<Integer>
{
    /** On an interrupt: how long the runtime gets to cancel (running tasks finish), then to remove the spill files. */
    static final long CANCEL_MS = 10_000;
    static final long REMOVE_MS = 5_000;

    /**
     * At most this many workers per available processor. Idle workers wake every millisecond to look for work
     * ({@code idleMaxParkNanos}), so hundreds of them on a few cores starve the busy ones and the IO thread: with 1000
     * workers on 2 processors LU still progressed, but a millisecond task took 40 s.
     */
    static final int WORKERS_PER_PROCESSOR = 8;

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "KERNEL", defaultValue = "lu",
        description = "matmul, lu or stencil (default: ${DEFAULT-VALUE}).")
    private String kernelName;

    @Mixin
    private KernelOptions problem;

    @Option(names = "--dram", paramLabel = "BYTES|PCT", defaultValue = "25%", converter = DramSize.Converter.class,
        description = "DRAM budget: bytes (512m) or a percentage of the data (12.5%%) (default: ${DEFAULT-VALUE}).")
    private DramSize dram;

    @Option(names = "--workers", paramLabel = "W", description = "Worker threads, 1 to " + WORKERS_PER_PROCESSOR +
        " per available processor (default: available processors).")
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

    @Option(names = "--report", paramLabel = "FILE.html", description = "Write an HTML page with per-worker " +
        "utilisation and IO-thread activity.")
    private Path report;

    @Option(names = "--graph", hidden = true, defaultValue = "spillway",
        description = "Run the main graph on spillway or mmap (used by bench kernels).")
    private String graphKind;

    @Option(names = "--order-dram", hidden = true, converter = ByteSize.class,
        description = "Budget that shapes the submission order, when it must differ from --dram (bench kernels).")
    private Long orderDram;

    @Option(names = "--no-verify", hidden = true, description = "Skip verification; the checksum is still computed.")
    private boolean noVerify;

    @Option(names = "--checkpoint-dir", paramLabel = "DIR", description = "Take checkpoints into DIR; running the " +
        "same command again resumes from the newest verified one (a finished run's checkpoint is not resumed).")
    private Path checkpointDir;

    @Option(names = "--checkpoint-every", paramLabel = "N|Ns|auto", defaultValue = "auto",
        description = "Checkpoint every N finished tasks, every N seconds (30s), or at the Young/Daly interval from " +
            "the measured checkpoint cost and --mtbf (default: ${DEFAULT-VALUE}).")
    private String checkpointEvery;

    @Option(names = "--mtbf", paramLabel = "SECONDS", description = "Mean time between failures for " +
        "--checkpoint-every auto (default: observed from earlier restarts in DIR, else " +
        (long)MtbfEstimator.DEFAULT_SECONDS + " s).")
    private Double mtbf;

    @Option(names = "--checkpoint-mode", hidden = true, defaultValue = "semi_blocking",
        description = "semi_blocking or blocking (bench checkpoint compares them).")
    private CheckpointMode checkpointMode;

    @Override
    public Integer call() throws Exception
    {
        final String kernelKey = kernelName.toLowerCase(java.util.Locale.ROOT);
        problem.check(kernelKey, spec.commandLine());
        if (!baseline.matches("none|incore|mmap"))
        {
            throw new ParameterException(spec.commandLine(), "--baseline must be none, incore " +
                "or mmap; got '" + baseline + "'");
        }
        final boolean distributed = RankEnvironment.present(System.getenv());
        if (distributed)
        {
            refuseOnRanks();
        }
        final int w = workers();
        checkCheckpointDir();
        final String letters = policy == null ? KernelOptions.defaultPolicy(kernelKey) : policy;
        final Blas.Choice blas = Blas.load();
        final Kernel probe = problem.create(kernelKey, blas.blas(), Long.MAX_VALUE, w);
        final Transport transport = distributed ? RankEnvironment.join(System.getenv()) : null;
        try
        {
            return call(kernelKey, w, letters, blas, probe, transport);
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
        final Kernel probe, final Transport transport) throws Exception
    {
        final int ranks = transport == null ? 1 : transport.size();
        final int rank = transport == null ? 0 : transport.rank();
        final long budget = dram.of(probe.dataBytes() / ranks);
        final Kernel kernel = problem.create(kernelKey, blas.blas(), orderDram == null ? budget : orderDram, w);
        final SpillArea area = spillArea();
        try (Interrupts.Action removal = Interrupts.onInterrupt("remove spill files", REMOVE_MS,
            () -> remove(area)))
        {
            final Path base = transport == null ? area.base() : area.subdirectory("rank-" + rank);
            final DiskCheck disk = DiskCheck.of(store, base, kernel.footprint(), ranks);
            require(disk.problem(Files.getFileStore(base).getUsableSpace()));
            return call(kernelKey, w, letters, blas, kernel, budget, transport, area, disk);
        }
    }

    private Integer call(final String kernelKey, final int w, final String letters, final Blas.Choice blas,
        final Kernel kernel, final long budget, final Transport transport, final SpillArea area, final DiskCheck disk)
        throws Exception
    {
        final int ranks = transport == null ? 1 : transport.size();
        final int rank = transport == null ? 0 : transport.rank();
        final Path base = disk.sizing().dir();
        final SpillwayConfig config = disk.apply(Spillway.builder().workers(w).dramBudget(budget).store(store)
            .storeDir(base).policy(letters));
        final DramCheck dramCheck = new DramCheck(kernel, dram, kernel.dataBytes() / ranks, budget, ranks);
        if (checkpointDir != null)
        {
            Checkpoints.configure(config, checkpointDir, checkpointEvery, mtbf).checkpointMode(checkpointMode);
        }
        final Path trace = report == null ? null : Files.createTempFile("spillway-trace", ".json");
        if (trace != null)
        {
            config.traceFile(trace);
        }

        System.err.printf("spillway run %s%s: %s, data %s, DRAM %s (%s), %d workers, policy %s, store %s in %s " +
                "(up to %s on disk)%n", kernel.name(), transport == null ? "" : " (rank " + rank + " of " + ranks + ")",
            shape(kernel), ByteSize.format(kernel.dataBytes()), ByteSize.format(budget),
            percent(budget * ranks, kernel.dataBytes()), w, letters, store.name().toLowerCase(java.util.Locale.ROOT),
            base, ByteSize.human(disk.bound()));
        System.err.println("spillway: BLAS " + blas.note());

        final RunResult result;
        CheckpointReport checkpoints = null;
        if (transport != null)
        {
            final RankFigures figures;
            try (EngineGraph graph = new EngineGraph(new DistributedSpillway(transport, config));
                Interrupts.Action cancel = Interrupts.onInterrupt("cancel", CANCEL_MS, graph::cancel))
            {
                require(dramCheck.problem(graph::dramCharge));
                result = runWithProgress(kernel, graph, "rank " + rank, !noVerify);
                figures = RankFigures.of(result, graph.rankStats());
            }
            final java.util.List<RankFigures> all = RankFigures.gather(transport, figures);
            if (rank != DistributedSpillway.ROOT)
            {
                System.err.println("spillway: " + figures.describe());
                return 0;
            }
            final Map<String, Object> out = summary(kernel, budget, w, letters, blas, result, null);
            RankFigures.put(all, out);
            print(kernel, result, null);
            System.out.print(RankFigures.describe(all));
            writeJson(out);
            return verdict(result);
        }
        if ("mmap".equals(graphKind))
        {
            result = runMapped(kernel, area, w, "mmap", !noVerify);
        }
        else
        {
            try (EngineGraph graph = new EngineGraph(config.build());
                Interrupts.Action cancel = Interrupts.onInterrupt("cancel", CANCEL_MS, graph::cancel))
            {
                require(dramCheck.problem(graph::dramCharge));
                result = runWithProgress(kernel, graph, "spillway", !noVerify);
                System.err.println("spillway: " + graph.stats());
                checkpoints = graph.checkpointReport();
            }
        }
        RunResult baselineResult = null;
        if (!"none".equals(baseline))
        {
            baselineResult = runBaseline(kernelKey, blas, budget, w, area, disk);
        }
        final Map<String, Object> out = summary(kernel, budget, w, letters, blas, result, baselineResult);
        if (checkpoints != null && checkpoints.enabled())
        {
            CheckpointSummary.put(checkpoints, out);
        }
        print(kernel, result, baselineResult);
        if (checkpoints != null && checkpoints.enabled())
        {
            System.out.print(CheckpointSummary.describe(checkpoints));
        }
        writeJson(out);
        if (report != null)
        {
            final Map<String, String> lines = new LinkedHashMap<>();
            out.forEach((k, v) -> lines.put(k, String.valueOf(v)));
            UtilisationReport.write(report, trace, lines);
            Files.deleteIfExists(trace);
            System.err.println("spillway: report written to " + report);
        }
        return verdict(result);
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
            // the process is exiting; what is left is removed by the next run in this directory
        }
    }

    private void writeJson(final Map<String, Object> out) throws IOException
    {
        if (json != null)
        {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), out);
        }
    }

    private static int verdict(final RunResult result)
    {
        if (result.verification() != null && !result.verification().verified())
        {
            System.err.println("spillway: verification FAILED: residual " + result.verification().residual() +
                " > " + result.verification().tolerance());
            return 1;
        }
        return 0;
    }

    /** Refuses (exit 2) a {@code --checkpoint-dir} that cannot be created or written, naming it and why. */
    private void checkCheckpointDir()
    {
        final String why = checkpointDir == null ? null : Dirs.whyUnwritable(checkpointDir);
        if (why != null)
        {
            throw new ParameterException(spec.commandLine(), "--checkpoint-dir " + checkpointDir + " cannot hold " +
                "checkpoints: " + why + "; choose a directory this user can create and write");
        }
    }

    /** @return {@code --workers}, or the processors; refused (exit 2) outside 1 to 8 per processor. */
    private int workers()
    {
        final int processors = Runtime.getRuntime().availableProcessors();
        if (workers == null)
        {
            return processors;
        }
        if (workers < 1)
        {
            throw new ParameterException(spec.commandLine(), "--workers must be at least 1, got " + workers);
        }
        final int limit = WORKERS_PER_PROCESSOR * processors;
        if (workers > limit)
        {
            throw new ParameterException(spec.commandLine(), "--workers " + workers + " is more than " +
                WORKERS_PER_PROCESSOR + " per available processor (" + processors + " here): idle workers wake " +
                "every millisecond to look for work, so that many starve the busy ones and the IO thread, and the run " +
                "crawls; use --workers " + limit + " or fewer (default: " + processors + ")");
        }
        return workers;
    }

    /** What one rank of a distributed run cannot do yet, refused before it joins the job. */
    private void refuseOnRanks()
    {
        final String refused = !"none".equals(baseline) ? "--baseline" : "mmap".equals(graphKind) ? "--graph mmap" :
            checkpointDir != null ? "--checkpoint-dir" : report != null ? "--report" : null;
        if (refused != null)
        {
            throw new ParameterException(spec.commandLine(), refused + " is not supported on " +
                "several ranks (SPILLWAY_RANK is set); run it on one rank");
        }
    }

    private RunResult runBaseline(final String kernelKey, final Blas.Choice blas, final long budget, final int w,
        final SpillArea area, final DiskCheck disk) throws IOException
    {
        final Path base = area.base();
        final Kernel again = problem.create(kernelKey, blas.blas(), orderDram == null ? budget : orderDram, w);
        if ("incore".equals(baseline))
        {
            final long all = again.dataBytes() + again.largestTaskBytes() + (64L << 20);
            final SpillwayConfig config = disk.apply(Spillway.builder().workers(w).dramBudget(all).store(store)
                .storeDir(base).policy(policy == null ? KernelOptions.defaultPolicy(kernelKey) : policy));
            try (EngineGraph graph = new EngineGraph(config.build());
                Interrupts.Action cancel = Interrupts.onInterrupt("cancel baseline", CANCEL_MS,
                    graph::cancel))
            {
                return runWithProgress(again, graph, "in-core baseline", false);
            }
        }
        if (!MemoryCgroup.insideLimitedCgroup())
        {
            System.err.println("spillway: note: the mmap baseline runs without a memory cap here, so the page cache " +
                "may hold all the data; `spillway bench kernels` caps it with a cgroup");
        }
        return runMapped(again, area, w, "mmap baseline", false);
    }

    private static RunResult runMapped(final Kernel kernel, final SpillArea area, final int w, final String label,
        final boolean verify) throws IOException
    {
        final Path mapped = area.temporary("mmap-");
        try (MappedGraph graph = new MappedGraph(mapped, w))
        {
            return runWithProgress(kernel, graph, label, verify);
        }
        finally
        {
            Dirs.deleteTree(mapped);
        }
    }

    private static RunResult runWithProgress(final Kernel kernel, final TileGraph graph, final String label,
        final boolean verify)
    {
        try (Progress progress = Progress.start(label + " " + kernel.name(), kernel.computeTasks()))
        {
            return KernelRunner.run(kernel, graph, verify, p -> progress.set(p.tasksDone(), traffic(p)));
        }
    }

    private static String traffic(final GraphProgress p)
    {
        return String.format("read %.2f GB, wrote %.2f GB", p.bytesRead() / 1e9, p.bytesWritten() / 1e9);
    }

    /** @return {@code --dir}, created if needed and proven writable; refused (exit 2) naming the reason if not. */
    private SpillArea spillArea()
    {
        try
        {
            return SpillArea.prepare(dir);
        }
        catch (final IOException e)
        {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** Refuses the arguments with {@code problem}, a message naming the option at fault, unless it is null. */
    private void require(final String problem)
    {
        if (problem != null)
        {
            throw new ParameterException(spec.commandLine(), problem);
        }
    }

    private static String shape(final Kernel k)
    {
        return ("stencil".equals(k.name()) ? k.size() + " cells, block " : "n=" + k.size() + ", tile ") + k.tile();
    }

    private static String percent(final long budget, final long data)
    {
        return String.format("%.1f%% of the data", 100.0 * budget / data);
    }

    private Map<String, Object> summary(final Kernel kernel, final long budget, final int w, final String letters,
        final Blas.Choice blas, final RunResult r, final RunResult b)
    {
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("kernel", kernel.name());
        out.put("graph", r.graph());
        out.put("n", kernel.size());
        out.put("tile", kernel.tile());
        out.put("dram_bytes", budget);
        out.put("data_bytes", kernel.dataBytes());
        out.put("pinned_bytes", kernel.pinnedBytes());
        out.put("workers", w);
        out.put("policy", letters);
        out.put("store", store.name().toLowerCase(java.util.Locale.ROOT));
        out.put("blas", blas.blas().name());
        out.put("init_s", r.initSeconds());
        out.put("time_s", r.timeSeconds());
        out.put("gflops", rate(kernel, r));
        out.put("work_unit", kernel.workUnit());
        out.put("bytes_read", r.bytesRead());
        out.put("bytes_written", r.bytesWritten());
        out.put("verified", r.verification() != null && r.verification().verified());
        out.put("residual", r.verification() == null ? null : r.verification().residual());
        out.put("tolerance", r.verification() == null ? null : r.verification().tolerance());
        out.put("verification", r.verification() == null ? null : r.verification().method());
        out.put("result_checksum", r.checksum());
        if (b != null)
        {
            final Map<String, Object> base = new LinkedHashMap<>();
            base.put("name", baseline);
            base.put("time_s", b.timeSeconds());
            base.put("bytes_read", b.bytesRead());
            base.put("bytes_written", b.bytesWritten());
            base.put("result_checksum", b.checksum());
            out.put("baseline", base);
            out.put("ratio", r.timeSeconds() / b.timeSeconds());
            out.put("bit_identical_to_baseline", r.checksum().equals(b.checksum()));
        }
        return out;
    }

    private static double rate(final Kernel kernel, final RunResult r)
    {
        return kernel.work() / r.timeSeconds() / 1e9;
    }

    private void print(final Kernel kernel, final RunResult r, final RunResult b)
    {
        final StringBuilder s = new StringBuilder();
        s.append(String.format("%s %s: %.2f s (inputs generated in %.2f s), %.1f %s%n", kernel.name(), shape(kernel),
            r.timeSeconds(), r.initSeconds(), rate(kernel, r), kernel.workUnit()));
        s.append(String.format("  NVMe: read %.2f GB, wrote %.2f GB during the compute phase%n", r.bytesRead() / 1e9,
            r.bytesWritten() / 1e9));
        if (r.verification() != null)
        {
            s.append(String.format("  %s: residual %.3g (tolerance %.3g), %s%n", r.verification().verified() ?
                "verified" : "NOT VERIFIED", r.verification().residual(), r.verification().tolerance(),
                r.verification().method()));
        }
        s.append("  result checksum ").append(r.checksum()).append(System.lineSeparator());
        if (b != null)
        {
            s.append(String.format("  baseline %s: %.2f s; Spillway / %s = %.3f; results %s%n", baseline, b.timeSeconds(),
                baseline, r.timeSeconds() / b.timeSeconds(), r.checksum().equals(b.checksum()) ? "bit-identical" :
                "DIFFER (checksum " + b.checksum() + ")"));
        }
        System.out.print(s);
    }
}
