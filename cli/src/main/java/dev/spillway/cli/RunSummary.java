package dev.spillway.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.spillway.cli.report.RunFacts;
import dev.spillway.io.StoreKind;
import dev.spillway.kernels.Kernel;
import dev.spillway.kernels.RunResult;
import dev.spillway.kernels.blas.Blas;
import dev.spillway.memory.ByteUnits;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code run} reports of a finished run: the keys of its {@code --json} (documented with their units in
 * {@code run.schema.json} beside this class), the lines it prints, and its exit status.
 *
 * @param invocation the command that ran.
 * @param kernel     the kernel run.
 * @param budget     the DRAM budget, per rank.
 * @param workers    worker threads.
 * @param policy     the IO policy letters.
 * @param store      the NVMe store.
 * @param blas       the BLAS in use.
 * @param baseline   the {@code --baseline} name.
 */
record RunSummary(Invocation invocation, Kernel kernel, long budget, int workers, String policy, StoreKind store,
    Blas.Choice blas, String baseline)
{
    /**
     * @param restored tasks restored from a checkpoint, counted in submission order from the first task.
     * @return the {@code --json} keys of result {@code r} and, unless null, of baseline result {@code b}.
     */
    Map<String, Object> json(final RunResult r, final RunResult b, final long restored)
    {
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("version", invocation.version());
        out.put("command", invocation.command());
        out.put("started_at", invocation.startedAt().toString());
        out.put("kernel", kernel.name());
        out.put("graph", r.graph());
        out.put("n", kernel.size());
        out.put("tile", kernel.tile());
        out.put("dram_bytes", budget);
        out.put("data_bytes", kernel.dataBytes());
        out.put("pinned_bytes", kernel.pinnedBytes());
        out.put("workers", workers);
        out.put("policy", policy);
        out.put("store", store.name().toLowerCase(java.util.Locale.ROOT));
        out.put("blas", blas.blas().name());
        out.put("init_s", r.initSeconds());
        out.put("time_s", r.timeSeconds());
        out.put(rateKey(kernel), rate(kernel, r, restored));
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
            out.put("spillway_over_baseline", r.timeSeconds() / b.timeSeconds());
            out.put("bit_identical_to_baseline", r.checksum().equals(b.checksum()));
        }
        return out;
    }

    /**
     * Prints the summary lines of result {@code r} and, unless null, of baseline result {@code b}.
     *
     * @param restored tasks restored from a checkpoint, as for {@link #json}.
     */
    void print(final RunResult r, final RunResult b, final long restored)
    {
        final StringBuilder s = new StringBuilder();
        final long skipped = restoredComputeTasks(kernel, r, restored);
        s.append(String.format("%s %s: %.2f s (inputs generated in %.2f s), %.1f %s%s%n", kernel.name(),
            shape(kernel), r.timeSeconds(), r.initSeconds(), rate(kernel, r, restored), kernel.workUnit(),
            skipped == 0 ? "" : String.format(" over the %d of %d compute tasks not restored from the checkpoint",
                kernel.computeTasks() - skipped, kernel.computeTasks())));
        s.append("  NVMe: read ").append(ByteUnits.format(r.bytesRead())).append(", wrote ")
            .append(ByteUnits.format(r.bytesWritten())).append(" during the compute phase").append(System.lineSeparator());
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

    /**
     * @return the figures of result {@code r} for the {@code --report} page, formatted; {@code restored} as
     * {@link #json}.
     */
    Map<String, String> reportLines(final RunResult r, final long restored)
    {
        final Map<String, String> out = new LinkedHashMap<>();
        out.put("kernel", kernel.name() + " " + shape(kernel) + ", data " + ByteUnits.format(kernel.dataBytes()) +
            (kernel.pinnedBytes() > 0 ? " (" + ByteUnits.format(kernel.pinnedBytes()) + " pinned)" : ""));
        out.put("compute", String.format(Locale.ROOT, "%.2f s, %.1f %s (inputs generated in %.2f s)",
            r.timeSeconds(), rate(kernel, r, restored), kernel.workUnit(), r.initSeconds()));
        out.put("store traffic", "read " + ByteUnits.format(r.bytesRead()) + ", wrote " +
            ByteUnits.format(r.bytesWritten()) + " during the compute phase");
        out.put("runtime", workers + " workers, policy " + policy + ", store " +
            store.name().toLowerCase(Locale.ROOT));
        out.put("verification", r.verification() == null ? "skipped" : String.format(Locale.ROOT,
            "%s: residual %.3g (tolerance %.3g), %s", r.verification().verified() ? "verified" : "NOT VERIFIED",
            r.verification().residual(), r.verification().tolerance(), r.verification().method()));
        out.put("result checksum", r.checksum());
        return out;
    }

    /** @return result {@code r} beside baseline result {@code b}, for the {@code --report} page. */
    RunFacts.Comparison comparison(final RunResult r, final RunResult b)
    {
        return new RunFacts.Comparison(new RunFacts.Side("spillway", r.timeSeconds(), r.bytesRead(),
            r.bytesWritten()), new RunFacts.Side(baseline, b.timeSeconds(), b.bytesRead(), b.bytesWritten()),
            r.checksum().equals(b.checksum()));
    }

    /** Writes {@code out} to {@code json} as indented JSON, unless {@code json} is null. */
    static void write(final Path json, final Map<String, Object> out) throws IOException
    {
        if (json != null)
        {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), out);
        }
    }

    /** @return the exit status: 1, saying so, if the result failed verification, else 0. */
    static int verdict(final RunResult result)
    {
        if (result.verification() != null && !result.verification().verified())
        {
            System.err.println("spillway: verification FAILED: residual " + result.verification().residual() +
                " > " + result.verification().tolerance());
            return 1;
        }
        return 0;
    }

    /** @return the problem size and tile as the summary names them. */
    static String shape(final Kernel k)
    {
        return ("stencil".equals(k.name()) ? k.size() + " cells, block " : "n=" + k.size() + ", tile ") + k.tile();
    }

    /**
     * @param restored tasks restored from a checkpoint, as for {@link #json}.
     * @return billions of work units per second of the compute phase, counting only the compute tasks that ran
     *         (each task's share of the work taken as equal).
     */
    static double rate(final Kernel kernel, final RunResult r, final long restored)
    {
        final double ran = kernel.computeTasks() - restoredComputeTasks(kernel, r, restored);
        return kernel.work() * ran / kernel.computeTasks() / r.timeSeconds() / 1e9;
    }

    /** @return the JSON key of the rate: the work unit per second, {@code gflop_per_s} or {@code gcell_per_s}. */
    static String rateKey(final Kernel kernel)
    {
        return kernel.workUnit().toLowerCase(java.util.Locale.ROOT).replace("/", "_per_");
    }

    /** @return how many of the compute phase's tasks lie among the {@code restored} first tasks. */
    private static long restoredComputeTasks(final Kernel kernel, final RunResult r, final long restored)
    {
        return Math.min(kernel.computeTasks(), Math.max(0, restored - r.inputTasks()));
    }
}
