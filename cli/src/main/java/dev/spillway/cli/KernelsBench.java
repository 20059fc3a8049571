package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.cli.report.BenchChart;
import dev.spillway.cli.report.BenchRow;
import dev.spillway.cli.report.BenchTable;
import dev.spillway.kernels.IoLowerBound;
import dev.spillway.kernels.stencil.Stencil;
import dev.spillway.memory.ByteUnits;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code spillway bench kernels}: each kernel at each DRAM fraction and policy set, out of core, against the same
 * graph in core and on mapped files. Every run is its own child JVM in a memory cgroup (v1 or v2), page cache
 * included: data + allowance in core, budget + allowance out of core and for mmap. The in-core run, the out-of-core
 * runs and the mmap run of one fraction run back to back.
 */
@Command(name = "kernels", mixinStandardHelpOptions = true,
    footer = {"", "Examples:",
        "  spillway bench kernels --quick --kernel matmul --out bench-out",
        "  spillway bench kernels --kernel lu --fractions 25,12.5 --policies 'p,s,d;f' --json lu-rows.json",
        "  spillway bench kernels --fractions 25,12.5,6.25 --policies default"},
    sortOptions = false,
    description = {"Sweep DRAM fractions and IO policies for matmul, lu and stencil; compare with in core and mmap.",
        "Writes a markdown table, JSON rows and an HTML chart of normalised time against DRAM fraction."})
final class KernelsBench implements Callable<Integer>
{
    static final List<String> TABLE_6_1 = List.of("f", "a", "p", "a,s", "p,s", "p,s,d");

    @Spec
    private CommandSpec spec;

    @Option(names = "--quick", description = "Small sizes, fractions 100, 25 and 12.5, default policy only: a few " +
        "minutes.")
    private boolean quick;

    @Option(names = "--kernel", paramLabel = "K", split = ",", description = "Kernels to run (default: matmul,lu," +
        "stencil).")
    private List<String> kernels;

    @Option(names = "--fractions", paramLabel = "PCT", split = ",", description = "DRAM fractions in percent " +
        "(default: 100,50,25,17,12.5,6.25).")
    private List<Double> fractions;

    @Option(names = "--policies", paramLabel = "SET", split = ";", description = "Policy sets, separated by ';' " +
        "(default: f;a;p;a,s;p,s;p,s,d plus each kernel's default); 'default' is each kernel's default.")
    private List<String> policies;

    @Option(names = "--workers", paramLabel = "W", description = "Workers (default: available processors).")
    private Integer workers;

    @Option(names = "--allowance", paramLabel = "BYTES", converter = ByteSize.class, defaultValue = "320m",
        description = "DRAM allowed to each JVM beyond the data (in core) or the budget (out of core, mmap): heap, " +
            "code, metaspace, store index (default: ${DEFAULT-VALUE}).")
    private long allowance;

    @Option(names = "--heap", paramLabel = "BYTES", converter = ByteSize.class, defaultValue = "160m",
        description = "-Xmx of each child JVM (default: ${DEFAULT-VALUE}).")
    private long heap;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "900",
        description = "Limit per child run; a run that exceeds it is reported as timed out (default: ${DEFAULT-VALUE}).")
    private long timeout;

    @Option(names = "--dir", paramLabel = "PATH", defaultValue = "spillway-data",
        description = "Directory of the NVMe tier and the mapped files (default: ${DEFAULT-VALUE}).")
    private Path dir;

    @Option(names = "--out", paramLabel = "DIR", description = "Where to write table.md, rows.json, chart.html and " +
        "each run's log (default: bench-results/kernels-<time>).")
    private Path out;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the rows to FILE as JSON.")
    private Path json;

    @Option(names = "--peer", paramLabel = "NAME", description = "Also run NAME on the same sizes, fractions, " +
        "workers and caps, in core and at each fraction: starpu (StarPU 1.3: our tiled GEMM and its stock " +
        "out-of-core LU; needs " + StarpuPeer.PACKAGES + "). Not for the stencil.")
    private String peer;

    private final ObjectMapper mapper = new ObjectMapper();

    /**
     * One child run's measurements.
     *
     * @param verified   whether the run verified its result in-process.
     * @param byChecksum whether it could not (a stencil grid over the verify limit), so its checksum is compared with
     *                   the reference's ({@link StencilReferences}).
     */
    record Measured(double timeS, long bytesRead, long bytesWritten, boolean verified, boolean byChecksum,
        String checksum, String failure)
    {
        boolean ok()
        {
            return failure == null;
        }
    }

    @Override
    public Integer call() throws Exception
    {
        final List<String> ks = kernels == null ? List.of("matmul", "lu", "stencil") : kernels;
        final List<Double> fs = fractions == null ? (quick ? List.of(100.0, 25.0, 12.5) :
            List.of(100.0, 50.0, 25.0, 17.0, 12.5, 6.25)) : fractions;
        final int w = workers == null ? Runtime.getRuntime().availableProcessors() : workers;
        final Path outDir = out != null ? out : Path.of("bench-results", "kernels-" +
            LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        Files.createDirectories(outDir);
        final String noCap = MemoryCgroup.unavailableReason();
        if (noCap != null)
        {
            System.err.println("spillway: WARNING: " + noCap + ": every run is UNCAPPED, so the page cache can hold " +
                "the data and the out-of-core and mmap figures are optimistic");
        }
        System.err.printf("spillway bench kernels: %s, fractions %s, %d workers, JVM allowance %s (-Xmx%s), " +
            "results in %s%n", ks, fs, w, ByteUnits.format(allowance), ByteUnits.format(heap), outDir);
        if (peer != null && !"starpu".equals(peer))
        {
            throw new ParameterException(spec.commandLine(), "--peer " + peer + ": only starpu is built");
        }
        final StarpuPeer starpu = peer == null ? null : StarpuPeer.build(outDir.resolve("starpu"), w, timeout);

        final List<BenchRow> rows = new ArrayList<>();
        final StringBuilder bounds = new StringBuilder("Lower bound: bytes read and written together in the compute " +
            "phase, M the budget in words (D the data, S the steps):\n");
        for (final String k : ks)
        {
            final List<String> problem = problemArgs(k);
            final dev.spillway.kernels.Kernel shape = probe(k, problem);
            bounds.append("- ").append(k).append(": ").append(shape.ioLowerBound(0).formula()).append('\n');
            final long data = shape.dataBytes();
            String reference = null;
            final boolean peered = starpu != null && !"stencil".equals(k);
            final double starpuIncore = peered ? peerRun(starpu, outDir, k + "-starpu-incore", k, shape, -1,
                data + allowance) : Double.NaN;
            for (final double f : fs)
            {
                final long budget = (long)Math.ceil(data * f / 100.0);
                final String tag = k + "-" + DramSize.trim(f);
                final IoLowerBound bound = shape.ioLowerBound(budget);
                final Measured incore = child(outDir, tag + "-incore", k, problem, data + data / 8 + (64L << 20), budget,
                    "default", "spillway", false, data + allowance, w);
                final List<Measured> ooc = new ArrayList<>();
                final List<String> sets = policySets(k);
                for (final String p : sets)
                {
                    ooc.add(child(outDir, tag + "-" + p.replace(',', '_'), k, problem, budget, budget, p, "spillway",
                        true, budget + allowance, w));
                }
                final Measured mmap = child(outDir, tag + "-mmap", k, problem, budget, budget, "default", "mmap", false,
                    budget + allowance, w);
                final double starpuTime = peered ? peerRun(starpu, outDir, tag + "-starpu", k, shape, budget,
                    budget + allowance) : Double.NaN;
                for (int i = 0; i < sets.size(); i++)
                {
                    final Measured m = ooc.get(i);
                    if (m.ok() && m.byChecksum() && reference == null)
                    {
                        reference = new StencilReferences(dir.resolve("reference-checksums"), timeout)
                            .checksum((Stencil)shape, problem);
                    }
                    final boolean verified = m.byChecksum() ? m.ok() && m.checksum().equals(reference) :
                        m.verified();
                    if (m.ok() && !verified)
                    {
                        System.err.printf("spillway: %s %s NOT VERIFIED: checksum %s%s%n", k, sets.get(i),
                            m.checksum(), m.byChecksum() ? ", the reference's is " + reference : "");
                    }
                    final boolean agrees = m.ok() && incore.ok() && m.checksum().equals(incore.checksum()) &&
                        (!mmap.ok() || m.checksum().equals(mmap.checksum()));
                    rows.add(BenchRow.of(k, shape.size(), shape.tile(), f, sets.get(i), m.ok() ? m.timeS() : Double.NaN,
                        incore.ok() ? incore.timeS() : Double.NaN, mmap.ok() ? mmap.timeS() : Double.NaN,
                        m.bytesRead(), m.bytesWritten(), bound.bytes(), verified && agrees)
                        .withStarpu(starpuTime, starpuIncore));
                }
                BenchTable.writeJson(outDir.resolve("rows.json"), rows);
            }
        }
        final String table = BenchTable.markdown(rows) + bounds;
        Files.writeString(outDir.resolve("table.md"), table);
        BenchChart.writeHtml(outDir.resolve("chart.html"), rows, "Spillway bench kernels (" + w + " workers" +
            (noCap == null ? ", memory cgroup cap" : ", UNCAPPED") + ")");
        if (json != null)
        {
            BenchTable.writeJson(json, rows);
        }
        System.out.print(table);
        System.err.println("spillway: wrote " + outDir.resolve("table.md") + ", rows.json and chart.html");
        return rows.stream().allMatch(BenchRow::verified) ? 0 : 1;
    }

    private List<String> policySets(final String kernel)
    {
        final Set<String> sets = new LinkedHashSet<>();
        if (policies != null)
        {
            policies.forEach(p -> sets.add("default".equals(p) ? KernelOptions.defaultPolicy(kernel) : p));
        }
        else if (!quick)
        {
            sets.addAll(TABLE_6_1);
        }
        sets.add(KernelOptions.defaultPolicy(kernel));
        return new ArrayList<>(sets);
    }

    /** @return the size options of the kernel: the StarPU-matched defaults, or small ones under --quick. */
    private List<String> problemArgs(final String kernel)
    {
        switch (kernel)
        {
            case "matmul":
                return quick ? List.of("--n", "4096", "--tile", "512") : List.of("--n", "10240", "--tile", "1024");
            case "lu":
                return quick ? List.of("--n", "6144", "--tile", "512") : List.of("--n", "16384", "--tile", "1024");
            case "stencil":
                return quick ? List.of("--grid", "384,384,192", "--tile", "96", "--sweeps", "10", "--steps", "3") :
                    List.of("--grid", "1024,1024,256", "--tile", "128", "--sweeps", "40", "--steps", "3");
            default:
                throw new IllegalArgumentException("unknown kernel '" + kernel + "': use matmul, lu or stencil");
        }
    }

    /** @return the kernel as the child runs would build it, for its data size and shape. */
    private static dev.spillway.kernels.Kernel probe(final String kernel, final List<String> problem)
    {
        final KernelOptions options = new KernelOptions();
        picocli.CommandLine.populateCommand(options, problem.toArray(new String[0]));
        return options.create(kernel, dev.spillway.kernels.blas.Blas.load().blas(), Long.MAX_VALUE, 1, 1);
    }

    /**
     * @return whether {@code result} is a run that could not verify itself in-process (a stencil grid above the verify
     *         limit: residual NaN) and exited 1 for that alone; its result checksum is then compared with the
     *         reference's ({@link StencilReferences}).
     */
    static boolean uncheckedInProcess(final Path result) throws IOException
    {
        if (!Files.exists(result))
        {
            return false;
        }
        final JsonNode r = new ObjectMapper().readTree(result.toFile());
        return !r.get("verified").asBoolean() && Double.isNaN(r.get("residual").asDouble())
            && r.get("verification").asText().startsWith("not verified in-process");
    }

    /** @return the peer's compute time in seconds under the same cap as Spillway's run, NaN if it failed. */
    private static double peerRun(final StarpuPeer starpu, final Path outDir, final String label, final String kernel,
        final dev.spillway.kernels.Kernel shape, final long budget, final long cap)
        throws IOException, InterruptedException
    {
        final boolean capped = MemoryCgroup.unavailableReason() == null;
        System.err.printf("spillway: %-28s cap %s ... ", label, capped ? ByteUnits.format(cap) : "none");
        if (capped)
        {
            MemoryCgroup.dropCaches();
        }
        final StarpuPeer.Result r;
        long peak = -1;
        try (MemoryCgroup group = capped ? MemoryCgroup.create("spillway-bench-" + ProcessHandle.current().pid() +
            "-" + label, cap) : null)
        {
            r = starpu.run(kernel, Math.toIntExact(shape.size()), shape.tile(), budget, group,
                outDir.resolve(label + ".log"));
            peak = capped ? group.peakBytes() : -1;
        }
        if (!r.ok())
        {
            System.err.println("FAILED: " + r.failure());
            return Double.NaN;
        }
        System.err.printf(Locale.ROOT, "%.2f s, peak %s, %s%n", r.timeS(), peak < 0 ? "n/a" :
            ByteUnits.format(peak), r.checked() ? "checked" : "not checked (StarPU's example)");
        return r.timeS();
    }

    private Measured child(final Path outDir, final String label, final String kernel, final List<String> problem,
        final long dram, final long orderDram, final String policy, final String graph, final boolean verify,
        final long cap, final int w) throws IOException, InterruptedException
    {
        final Path result = outDir.resolve(label + ".json");
        final Path log = outDir.resolve(label + ".log");
        Files.deleteIfExists(result);
        final List<String> cmd = ChildJvm.command(Long.toString(heap), List.of("run", kernel));
        cmd.addAll(problem);
        cmd.addAll(List.of("--dram", Long.toString(dram), "--order-dram", Long.toString(orderDram), "--workers",
            Integer.toString(w), "--dir", dir.toString(), "--graph", graph, "--json", result.toString()));
        if (!"default".equals(policy))
        {
            cmd.addAll(List.of("--policy", policy));
        }
        if (!verify)
        {
            cmd.add("--no-verify");
        }
        final boolean capped = MemoryCgroup.unavailableReason() == null;
        final String name = "spillway-bench-" + ProcessHandle.current().pid() + "-" + label.replace(',', '_');
        System.err.printf("spillway: %-28s cap %s ... ", label, capped ? ByteUnits.format(cap) : "none");
        final long started = System.nanoTime();
        long peak = -1;
        String failure = null;
        if (capped)
        {
            MemoryCgroup.dropCaches();
        }
        try (MemoryCgroup group = capped ? MemoryCgroup.create(name, cap) : null)
        {
            final Process p = new ProcessBuilder(capped ? group.wrap(cmd) : cmd).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
            if (!p.waitFor(timeout, TimeUnit.SECONDS))
            {
                p.destroyForcibly().waitFor();
                failure = "timed out after " + timeout + " s";
            }
            else if (p.exitValue() != 0 && !(p.exitValue() == 1 && uncheckedInProcess(result)))
            {
                failure = "exit " + p.exitValue() + (capped && group.limitHits() > 0 ? " (memory cap hit " +
                    group.limitHits() + " times)" : "") + ", see " + log;
            }
            peak = capped ? group.peakBytes() : -1;
        }
        final double wall = (System.nanoTime() - started) / 1e9;
        if (failure == null && !Files.exists(result))
        {
            failure = "no result written, see " + log;
        }
        if (failure != null)
        {
            System.err.printf("FAILED: %s (%.0f s)%n", failure, wall);
            return new Measured(Double.NaN, 0, 0, false, false, "", failure);
        }
        final JsonNode r = mapper.readTree(result.toFile());
        final boolean byChecksumOnly = uncheckedInProcess(result);
        final Measured m = new Measured(r.get("time_s").asDouble(), r.get("bytes_read").asLong(),
            r.get("bytes_written").asLong(), r.get("verified").asBoolean(), byChecksumOnly,
            r.get("result_checksum").asText(), null);
        System.err.printf(Locale.ROOT, "%.2f s, read %s, wrote %s, peak %s%s%n", m.timeS(),
            ByteUnits.format(m.bytesRead()), ByteUnits.format(m.bytesWritten()), peak < 0 ? "n/a" : ByteUnits.format(peak), verify ? (byChecksumOnly ?
                ", too large to verify in-process: checked against the reference checksum" :
                m.verified() ? ", verified" : ", NOT VERIFIED") : "");
        return m;
    }
}
