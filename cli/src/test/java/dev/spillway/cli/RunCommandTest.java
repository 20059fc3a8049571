package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.cli.report.UtilisationReport;
import dev.spillway.kernels.blas.JavaBlas;
import dev.spillway.resilience.interval.MtbfEstimator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code spillway run}: the JSON it writes, its baselines and report, and each bad input refused by name. */
class RunCommandTest
{
    @TempDir
    Path tmp;

    private final InProcessCli cli = new InProcessCli();
    private final StringWriter err = cli.err;

    private int run(final String... args)
    {
        return cli.run(args);
    }

    @Test
    void luOutOfCoreWritesEveryKeyAndMatchesItsInCoreBaseline() throws IOException
    {
        final Path json = tmp.resolve("lu.json");
        final Path report = tmp.resolve("lu.html");
        assertEquals(0, run("run", "lu", "--n", "512", "--tile", "64", "--dram", "25%", "--workers", "2",
            "--dir", tmp.resolve("spill").toString(), "--baseline", "incore", "--json", json.toString(),
            "--report", report.toString()), err::toString);
        final JsonNode r = new ObjectMapper().readTree(json.toFile());
        RunSchema.assertConforms(r);
        for (final String key : new String[] {"version", "command", "started_at", "kernel", "n", "tile", "dram_bytes",
            "data_bytes", "workers", "policy", "time_s", "gflop_per_s", "bytes_read", "bytes_written", "verified",
            "residual", "result_checksum", "tasks", "stats", "baseline", "spillway_over_baseline"})
        {
            assertTrue(r.has(key), "missing " + key + " in " + r);
        }
        assertEquals("spillway", r.get("command").get(0).asText());
        assertEquals("run", r.get("command").get(1).asText());
        assertEquals(json.toString(), r.get("command").get(r.get("command").size() - 3).asText(), r::toString);
        assertEquals(SpillwayCli.Version.number(), r.get("version").asText());
        assertTrue(r.get("started_at").asText().endsWith("Z"), r::toString);
        assertEquals("lu", r.get("kernel").asText());
        assertEquals(512, r.get("n").asInt());
        assertEquals(r.get("data_bytes").asLong() / 4, r.get("dram_bytes").asLong());
        assertTrue(r.get("verified").asBoolean());
        assertTrue(r.get("bytes_written").asLong() > 0, "a quarter budget never spilled");
        assertEquals("incore", r.get("baseline").get("name").asText());
        assertEquals(r.get("result_checksum").asText(), r.get("baseline").get("result_checksum").asText());
        assertTrue(r.get("spillway_over_baseline").asDouble() > 0);
        final JsonNode stats = r.get("stats");
        assertTrue(stats.get("dirty_evictions").asLong() > 0 && stats.get("nvme_bytes_written").asLong() > 0 &&
            stats.get("dram_peak_bytes").asLong() <= stats.get("dram_budget_bytes").asLong(), stats::toString);
        final JsonNode tasks = r.get("tasks");
        assertEquals(new dev.spillway.kernels.dense.Lu(512, 64, false, new JavaBlas()).computeTasks(),
            tasks.get("compute").asLong(), "the compute phase ran every compute task: " + tasks);
        assertEquals(stats.get("tasks_done").asLong(), tasks.get("generation").asLong() + tasks.get("compute")
            .asLong() + tasks.get("verification").asLong(), "the phases add up to the tasks done: " + r);
        final String html = Files.readString(report);
        assertTrue(html.contains("<svg") && html.contains("IO"), "report lacks the timeline");
        assertTrue(html.contains("<a href=\"lu.trace.json\">"), "the report links its trace beside it");
        assertTrue(Files.size(tmp.resolve("lu.trace.json")) > 0, "the linked trace is kept");
    }

    /** Issue 18: run.schema.json documents every key, so a key added without documenting it fails here. */
    @Test
    void anUndocumentedKeyBreaksTheSchema() throws IOException
    {
        final Path json = tmp.resolve("mm.json");
        assertEquals(0, run("run", "matmul", "--n", "128", "--tile", "64", "--dir", tmp.resolve("spill").toString(),
            "--json", json.toString()), err::toString);
        final com.fasterxml.jackson.databind.node.ObjectNode r =
            (com.fasterxml.jackson.databind.node.ObjectNode)new ObjectMapper().readTree(json.toFile());
        RunSchema.assertConforms(r);
        ((com.fasterxml.jackson.databind.node.ObjectNode)r.get("stats")).put("nvme_trims", 0);
        r.put("gflops", 1.0);
        final String broken = RunSchema.violations(r).toString();
        assertTrue(broken.contains("gflops") && broken.contains("nvme_trims"), broken);
    }

    @Test
    void matmulAgainstMmapIsBitIdentical() throws IOException
    {
        final Path json = tmp.resolve("mm.json");
        assertEquals(0, run("run", "matmul", "--n", "256", "--tile", "64", "--dram", "40%", "--dir",
            tmp.resolve("spill").toString(), "--baseline", "mmap", "--json", json.toString()), err::toString);
        final JsonNode r = new ObjectMapper().readTree(json.toFile());
        RunSchema.assertConforms(r);
        assertEquals("mmap", r.get("baseline").get("name").asText());
        assertTrue(r.get("bit_identical_to_baseline").asBoolean(), r::toString);
    }

    @Test
    void blasCeilingIsMeasuredBesideAMatmulAndRefusedForOtherKernels() throws IOException
    {
        final Path json = tmp.resolve("ceiling.json");
        assertEquals(0, run("run", "matmul", "--n", "256", "--tile", "64", "--dram", "100%", "--workers", "2",
            "--dir", tmp.resolve("spill").toString(), "--blas-ceiling", "--json", json.toString()), err::toString);
        final JsonNode r = new ObjectMapper().readTree(json.toFile());
        RunSchema.assertConforms(r);
        final double ceiling = r.get("blas_ceiling_gflop_per_s").asDouble();
        assertTrue(ceiling > 0, r::toString);
        assertEquals(r.get("gflop_per_s").asDouble() / ceiling, r.get("run_over_blas_ceiling").asDouble(), 1e-9);

        assertEquals(2, run("run", "lu", "--n", "256", "--tile", "64", "--dir", tmp.toString(), "--blas-ceiling"));
        assertTrue(err.toString().contains("--blas-ceiling compares the run with dgemm alone: it applies to matmul, " +
            "not lu"), err::toString);
    }

    @Test
    void buddyModesThatCannotRunHereAreRefusedByName()
    {
        final String[] base = {"run", "lu", "--n", "256", "--tile", "64", "--dir", tmp.toString(), "--checkpoint-dir",
            tmp.resolve("ckpt").toString()};
        for (final String[] refused : new String[][] {
            {"--buddy", "staged", "--buddy staged copies each rank's checkpoint to another rank: run it under " +
                "spillway launch"},
            {"--buddy", "memory", "--buddy memory (copies in the buddy's DRAM) is not built yet; use --buddy staged"},
            {"--buddy", "ram", "--buddy 'ram' is not a mode: use none or staged"},
            {"--buddy-stream", "puts", "--buddy-stream applies only to --buddy staged"},
            {"--buddy", "staged", "--buddy-stream", "rdma", "--buddy-stream 'rdma' is not a way to copy: use " +
                "messages or puts"}})
        {
            err.getBuffer().setLength(0);
            final String[] args = Arrays.copyOf(base, base.length + refused.length - 1);
            System.arraycopy(refused, 0, args, base.length, refused.length - 1);
            assertEquals(2, run(args), err::toString);
            assertTrue(err.toString().contains(refused[refused.length - 1]), err::toString);
        }
    }

    @Test
    void stencilRunsVerified() throws IOException
    {
        final Path json = tmp.resolve("st.json");
        assertEquals(0, run("run", "stencil", "--grid", "64,48,32", "--tile", "16", "--sweeps", "3", "--steps", "2",
            "--dram", "80%", "--dir", tmp.resolve("spill").toString(), "--json", json.toString()), err::toString);
        final JsonNode r = new ObjectMapper().readTree(json.toFile());
        RunSchema.assertConforms(r);
        assertTrue(r.get("verified").asBoolean(), r::toString);
        assertTrue(r.get("pinned_bytes").asLong() > 0);
        assertTrue(r.get("gcell_per_s").asDouble() > 0 && !r.has("gflop_per_s"), "the stencil's rate is in Gcell/s: " +
            r);
    }

    @Test
    void aSizeThatIsNotATileMultipleIsRefused()
    {
        assertEquals(2, run("run", "lu", "--n", "1000", "--tile", "128", "--dir", tmp.toString()));
        assertTrue(err.toString().contains("--n 1000 is not a multiple of --tile 128"), err::toString);
    }

    @Test
    void aBudgetBelowOneTasksWorkingSetIsRefused()
    {
        assertEquals(2, run("run", "matmul", "--n", "512", "--tile", "256", "--dram", "1m", "--dir", tmp.toString()));
        assertTrue(err.toString().contains("--dram 1 MiB is too small: matmul needs 1.5 MiB"), err::toString);
        assertTrue(err.toString().contains("use --dram 1536k or more"), err::toString);
    }

    /** Issue 18, defect 1: the default --dram, 25 % of the data, may not hold one task; defaults must still run. */
    @Test
    void theDefaultBudgetIsRaisedToTheLeastThatRunsAndSaysSo() throws IOException
    {
        final Path json = tmp.resolve("lu.json");
        assertEquals(0, run("run", "lu", "--n", "1024", "--dir", tmp.resolve("spill").toString(), "--json",
            json.toString()), err::toString);
        assertTrue(err.toString().contains("the default --dram 25% cannot hold lu's largest task; running with " +
            "--dram 6144k, the least that can"), err::toString);
        final JsonNode r = new ObjectMapper().readTree(json.toFile());
        assertEquals(6L << 20, r.get("dram_bytes").asLong(), r::toString);
        assertTrue(r.get("verified").asBoolean(), r::toString);
        assertFalse(Files.exists(tmp.resolve("spill")), "the run removes the --dir it created (issue 18, defect 8)");
    }

    /** Issue 18, defect 11: a finished run's checkpoint directory stays; the run says what it holds. */
    @Test
    void aCheckpointedRunSaysWhatItsCheckpointDirectoryHolds() throws Exception
    {
        final Path ck = tmp.resolve("ck");
        final java.io.ByteArrayOutputStream stdout = new java.io.ByteArrayOutputStream();
        final java.io.PrintStream original = System.out;
        System.setOut(new java.io.PrintStream(stdout, true, java.nio.charset.StandardCharsets.UTF_8));
        try
        {
            assertEquals(0, run("run", "lu", "--n", "512", "--tile", "64", "--dram", "50%", "--dir",
                tmp.resolve("spill").toString(), "--checkpoint-dir", ck.toString(), "--checkpoint-every", "20",
                "--json", tmp.resolve("ck.json").toString()), err::toString);
        }
        finally
        {
            System.setOut(original);
        }
        final String printed = stdout.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(printed.contains(ck + " holds ") && !printed.contains(ck + " holds 0 B"), printed);
        assertTrue(Files.exists(ck), "the directory stays");
        final JsonNode r = new ObjectMapper().readTree(tmp.resolve("ck.json").toFile());
        RunSchema.assertConforms(r);
        assertTrue(r.get("checkpoints").asInt() > 0, r::toString);
    }

    /**
     * Issue 18, defect 9: a stencil too large to verify in-process exits 1 without having failed; bench kernels then
     * checks it by checksum against the other runs. A run whose verification failed stays a failure.
     */
    @Test
    void aRunTooLargeToVerifyInProcessIsToldApartFromAFailedOne() throws IOException
    {
        final Path unchecked = Files.writeString(tmp.resolve("unchecked.json"), "{\"verified\": false, \"residual\": " +
            "\"NaN\", \"verification\": \"not verified in-process: the grid's 226492416 bytes exceed the verify " +
            "limit\"}");
        final Path failed = Files.writeString(tmp.resolve("failed.json"), "{\"verified\": false, \"residual\": " +
            "3.5e4, \"verification\": \"whole grid vs in-memory sweep\"}");
        assertTrue(KernelsBench.uncheckedInProcess(unchecked));
        assertFalse(KernelsBench.uncheckedInProcess(failed));
        assertFalse(KernelsBench.uncheckedInProcess(tmp.resolve("missing.json")));
    }

    /** Page rounding: the engine charges the pivots (8 KiB of data) whole pages, which 25 % of the data misses. */
    @Test
    void pivotedLuBudgetIsCheckedAsTheEngineChargesItAndTheSuggestionRuns()
    {
        final String[] lu = {"run", "lu", "--n", "2048", "--tile", "256", "--pivoting", "--workers", "2", "--dir",
            tmp.resolve("spill").toString(), "--dram"};
        assertEquals(2, run(concat(lu, "25%")), err::toString);
        assertTrue(err.toString().contains("--dram 25% (8 MiB) is too small: lu needs 8.01 MiB"), err::toString);
        assertEquals(0, run(concat(lu, suggestion())), err::toString);
    }

    /** The ghost layers are pinned page by page: the check counts them so, and the suggested budget runs. */
    @Test
    void stencilBudgetCountsPinnedGhostsByPageAndTheSuggestionRuns()
    {
        final String[] stencil = {"run", "stencil", "--grid", "100,100,100", "--tile", "32", "--steps", "1",
            "--workers", "2", "--dir", tmp.resolve("spill").toString(), "--dram"};
        assertEquals(2, run(concat(stencil, "25%")), err::toString);
        assertTrue(err.toString().contains("B of pinned data"), err::toString);
        assertEquals(0, run(concat(stencil, suggestion())), err::toString);
    }

    /** @return the first value of "use --dram VALUE" in the error output, then forgets the output. */
    private String suggestion()
    {
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("use --dram (\\S+)").matcher(err.toString());
        assertTrue(m.find(), "no suggested --dram in: " + err);
        err.getBuffer().setLength(0);
        return m.group(1);
    }

    private static String[] concat(final String[] head, final String last)
    {
        final String[] all = java.util.Arrays.copyOf(head, head.length + 1);
        all[head.length] = last;
        return all;
    }

    @Test
    void anUnwritableDirIsRefused()
    {
        assertEquals(2, run("run", "lu", "--n", "256", "--tile", "64", "--dir", "/proc/spillway-cannot-write"));
        assertTrue(err.toString().contains("is not a writable directory"), err::toString);
    }

    @Test
    void workersBeyondEightPerProcessorAreRefused()
    {
        final int limit = 8 * Runtime.getRuntime().availableProcessors();
        assertEquals(2, run("run", "lu", "--n", "256", "--tile", "64", "--workers", Integer.toString(limit + 1),
            "--dir", tmp.toString()), err::toString);
        assertTrue(err.toString().contains("--workers " + (limit + 1) + " is more than 8 per available processor") &&
            err.toString().contains("use --workers " + limit + " or fewer"), err::toString);
        assertEquals(2, run("run", "lu", "--n", "256", "--tile", "64", "--workers", "0", "--dir", tmp.toString()));
        assertTrue(err.toString().contains("--workers must be at least 1, got 0"), err::toString);
    }

    @Test
    void aCheckpointDirThatCannotBeCreatedIsRefusedNamingItAndWhy() throws IOException
    {
        final Path file = Files.writeString(tmp.resolve("plain-file"), "x");
        assertCheckpointDirRefused(file, "cannot create it: a file, not a directory, is there");
        assertCheckpointDirRefused(file.resolve("ck"), "cannot create it: ");
        assertCheckpointDirRefused(Path.of("/proc/spillway-ck"), "cannot create it: ");
    }

    /** Root writes through permissions, so the directory is made immutable (chattr +i) or mounted read-only. */
    @Test
    void aReadOnlyCheckpointDirIsRefused() throws Exception
    {
        final Path ck = Files.createDirectories(tmp.resolve("read-only"));
        try (ReadOnly ignored = ReadOnly.make(ck))
        {
            assertCheckpointDirRefused(ck, "cannot write in it: ");
        }
    }

    private void assertCheckpointDirRefused(final Path ck, final String why)
    {
        err.getBuffer().setLength(0);
        assertEquals(2, run("run", "lu", "--n", "256", "--tile", "64", "--dir", tmp.resolve("spill").toString(),
            "--checkpoint-dir", ck.toString()), err::toString);
        final String first = err.toString().lines().findFirst().orElse("");
        assertTrue(first.startsWith("spillway: --checkpoint-dir " + ck + " cannot hold checkpoints: " + why) &&
            first.endsWith("; choose a directory this user can create and write"), err::toString);
    }

    @Test
    void helpStatesTheMtbfDefaultTheCodeUses()
    {
        final StringWriter out = new StringWriter();
        final CommandLine cmd = SpillwayCli.commandLine();
        cmd.setOut(new PrintWriter(out, true));
        assertEquals(0, cmd.execute("run", "--help"));
        final String help = out.toString().replaceAll("\\s+", " ");
        assertTrue(help.contains("else " + (long)MtbfEstimator.DEFAULT_SECONDS + " s)"), help);
    }

    @Test
    void anUnknownPolicyLetterIsRefused()
    {
        assertEquals(2, run("run", "lu", "--n", "256", "--tile", "64", "--policy", "q,s", "--dir", tmp.toString()));
        assertTrue(err.toString().contains("unknown policy letter 'q'"), err::toString);
    }

    /** Output files are checked before the run: a typo must not cost a long run its results. */
    @Test
    void anUnwritableOutputFileIsRefusedBeforeTheRun()
    {
        final Path missing = tmp.resolve("no-such-dir").resolve("r.json");
        final Path spill = tmp.resolve("spill");
        assertEquals(2, run("run", "lu", "--n", "256", "--tile", "64", "--dir", spill.toString(), "--json",
            missing.toString()));
        assertTrue(err.toString().contains("--json " + missing + " cannot be written: directory " +
            missing.getParent() + " does not exist; nothing was run"), err::toString);
        assertFalse(Files.exists(spill), "the run went ahead and prepared its spill directory");
        assertEquals(2, run("run", "lu", "--n", "256", "--tile", "64", "--dir", spill.toString(), "--report",
            tmp.toString()));
        assertTrue(err.toString().contains("--report " + tmp + " cannot be written: it is a directory"), err::toString);
    }

    /** Issue 18: --trace writes the trace alone, or beside a report that links it, and says where. */
    @Test
    void traceWritesAChromeTraceAndTheRunSaysWhere() throws IOException
    {
        final Path trace = tmp.resolve("t.json");
        final Path spill = tmp.resolve("spill");
        assertEquals(0, run("run", "lu", "--n", "256", "--tile", "64", "--dram", "25%", "--workers", "2", "--dir",
            spill.toString(), "--trace", trace.toString()), err::toString);
        assertTrue(err.toString().contains("trace (Chrome trace events, for Perfetto) written to " + trace),
            err::toString);
        final JsonNode events = new ObjectMapper().readTree(trace.toFile()).get("traceEvents");
        final Set<String> counters = new HashSet<>();
        final Set<String> phases = new HashSet<>();
        for (final JsonNode e : events)
        {
            if (e.get("ph").asText().equals("C"))
            {
                counters.add(e.get("name").asText());
            }
            if (e.path("cat").asText().equals("phase"))
            {
                phases.add(e.get("name").asText());
            }
        }
        assertTrue(counters.containsAll(List.of("DRAM", "DRAM budget", "store bandwidth")), counters::toString);
        assertEquals(Set.of("generation", "compute", "verification", "checksum"), phases);

        final Path other = Files.createDirectory(tmp.resolve("traces")).resolve("lu.json");
        final Path report = tmp.resolve("lu.html");
        assertEquals(0, run("run", "lu", "--n", "256", "--tile", "64", "--dram", "25%", "--workers", "2", "--dir",
            spill.toString(), "--report", report.toString(), "--trace", other.toString()), err::toString);
        assertTrue(Files.readString(report).contains("<a href=\"" + other.toUri() + "\">"), "the page links --trace");
        assertFalse(Files.exists(UtilisationReport.traceNextTo(report)), "no second trace beside the page");
    }

    @Test
    void traceAndDiskRatesAreCheckedBeforeTheRun() throws IOException
    {
        final Path spill = tmp.resolve("spill");
        final Path missing = tmp.resolve("no-such-dir").resolve("t.json");
        assertEquals(2, run("run", "lu", "--n", "256", "--tile", "64", "--dir", spill.toString(), "--trace",
            missing.toString()));
        assertTrue(err.toString().contains("--trace " + missing + " cannot be written: directory " +
            missing.getParent() + " does not exist; nothing was run"), err::toString);
        final Path page = tmp.resolve("r.html");
        assertEquals(2, run("run", "lu", "--n", "256", "--tile", "64", "--dir", spill.toString(), "--report",
            page.toString(), "--trace", page.toString()));
        assertTrue(err.toString().contains("--report and --trace name the same file"), err::toString);
        final Path notBenchIo = Files.writeString(tmp.resolve("rates.json"), "{\"stores\": []}");
        assertEquals(2, run("run", "lu", "--n", "256", "--tile", "64", "--dir", spill.toString(), "--disk-rates",
            notBenchIo.toString()));
        assertTrue(err.toString().contains("--disk-rates is drawn on the --report page"), err::toString);
        assertEquals(2, run("run", "lu", "--n", "256", "--tile", "64", "--dir", spill.toString(), "--report",
            page.toString(), "--disk-rates", notBenchIo.toString()));
        assertTrue(err.toString().contains("holds no raw_read_mb_s and raw_write_mb_s"), err::toString);
        assertFalse(Files.exists(spill), "the run went ahead and prepared its spill directory");
    }

    @Test
    void optionsOfAnotherKernelAreRefused()
    {
        assertEquals(2, run("run", "matmul", "--grid", "8,8,8"));
        assertEquals(2, run("run", "lu", "--baseline", "disk"));
    }

    @Test
    void kernelsBenchQuickRunsOneCappedConfiguration() throws IOException
    {
        final Path out = tmp.resolve("bench");
        assertEquals(0, run("bench", "kernels", "--quick", "--kernel", "matmul", "--fractions", "50", "--dir",
            tmp.resolve("spill").toString(), "--out", out.toString(), "--allowance", "400m"), err::toString);
        final JsonNode rows = new ObjectMapper().readTree(out.resolve("rows.json").toFile());
        assertEquals(1, rows.size());
        final JsonNode row = rows.get(0);
        for (final String key : new String[] {"kernel", "n", "tile", "fraction", "policy", "time_s", "incore_time_s",
            "mmap_time_s", "spillway_over_incore", "mmap_over_spillway", "bytes_read", "bytes_written", "verified"})
        {
            assertTrue(row.has(key), "missing " + key + " in " + row);
        }
        assertTrue(row.get("verified").asBoolean(), row::toString);
        assertTrue(Files.readString(out.resolve("chart.html")).contains("<svg"));
    }
}
