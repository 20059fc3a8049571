package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The table, verdict and JSON of {@code bench rdma} from given figures (nothing is measured). */
class RdmaBenchCommandTest
{
    private static final String SHM = "rma(sysv/memory posix/memory)";

    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();

    private static RdmaBenchCommand.Row row(final int bytes, final double put, final double perftestPut)
    {
        return RdmaBenchCommand.Row.of(new RdmaBench.Point(bytes, 10, put, put / 2, 3.5),
            new UcxPerftest.Result(1, perftestPut, SHM), new UcxPerftest.Result(1, put, SHM));
    }

    private static RdmaBenchCommand.Result result(final String perftestLanes, final RdmaBenchCommand.Row... rows)
    {
        return new RdmaBenchCommand.Result("shm", "1.13.1", SHM, perftestLanes, 10, 0.25, List.of(rows));
    }

    private void report(final RdmaBenchCommand.Result r, final String... args) throws IOException
    {
        final RdmaBenchCommand cmd = new RdmaBenchCommand();
        final CommandLine cl = new CommandLine(cmd).setCaseInsensitiveEnumValuesAllowed(true); // as SpillwayCli
        cl.setOut(new PrintWriter(out, true));
        cl.parseArgs(args);
        cmd.report(r);
    }

    @Test
    void sizeBelowEightBytesIsAUsageErrorBeforeAnythingStarts()
    {
        final StringWriter err = new StringWriter();
        final CommandLine cl = SpillwayCli.commandLine();
        cl.setErr(new PrintWriter(err, true));
        assertEquals(2, cl.execute("bench", "rdma", "--max-bytes", "4"));
        assertTrue(err.toString().contains("--max-bytes must be between 8 B and 1 GiB"), err::toString);
    }

    @Test
    void jsonHasExactlyTheIssuesKeysPerSize() throws IOException
    {
        final Path json = tmp.resolve("rdma.json");
        report(result(SHM, row(8, 10, 200), row(1 << 20, 9000, 10000)), "--json", json.toString());
        final JsonNode r = new ObjectMapper().readTree(json.toFile());
        assertEquals("shm", r.get("transport").asText());
        assertEquals("1.13.1", r.get("ucx_version").asText());
        assertEquals(SHM, r.get("perftest_rma_lanes").asText());
        assertEquals(2, r.get("sizes").size());
        final JsonNode large = r.get("sizes").get(1);
        final Set<String> keys = new TreeSet<>();
        large.fieldNames().forEachRemaining(keys::add);
        assertEquals(new TreeSet<>(List.of("bytes", "put_mb_s", "get_mb_s", "put_latency_us", "perftest_put_mb_s",
            "put_ratio")), keys);
        assertEquals(1 << 20, large.get("bytes").asLong());
        assertEquals(4500, large.get("get_mb_s").asDouble(), 1e-9);
        assertEquals(0.9, large.get("put_ratio").asDouble(), 1e-9);
    }

    @Test
    void verdictTakesTheWorstRatioFromOneMebibyte() throws IOException
    {
        report(result(SHM, row(8, 1, 200), row(1 << 20, 9500, 10000), row(4 << 20, 8000, 10000)));
        final String table = out.toString();
        assertTrue(table.contains("     1 MiB"), table);
        assertTrue(table.contains("lowest ratio to ucx_perftest 0.80 (target >= 0.9): FAIL"), table);
        assertFalse(table.contains("WARNING"), table);
    }

    @Test
    void smallSizesDoNotCountAndDifferentLanesWarn() throws IOException
    {
        report(result("rma_am(tcp/lo)", row(8, 1, 200), row(2 << 20, 9500, 10000)));
        final String table = out.toString();
        assertTrue(table.contains("lowest ratio to ucx_perftest 0.95 (target >= 0.9): PASS"), table);
        assertTrue(table.contains("WARNING: the RMA lanes differ"), table);
    }
}
