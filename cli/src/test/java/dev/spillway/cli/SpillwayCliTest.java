package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.TypeConversionException;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SpillwayCliTest
{
    @TempDir
    Path tmp;

    private final InProcessCli cli = new InProcessCli();
    private final StringWriter out = cli.out;
    private final StringWriter err = cli.err;

    private int run(final String... args)
    {
        return cli.run(args);
    }

    private static void assertPositive(final JsonNode node, final String key)
    {
        assertTrue(node.has(key), "missing key " + key + " in " + node);
        assertTrue(node.get(key).isNumber() && node.get(key).asDouble() > 0, key + " = " + node.get(key));
    }

    @Test
    void overheadWritesTheJsonKeys() throws IOException
    {
        final Path json = tmp.resolve("overhead.json");
        assertEquals(0, run("bench", "overhead", "--tasks", "20000", "--reps", "1", "--json", json.toString()),
            err::toString);
        final JsonNode r = new ObjectMapper().readTree(json.toFile());
        for (final String key : new String[] {"engine_ns_per_task", "chain_ns_per_task", "forkjoin_ns_per_task",
            "chain_latency_ns_per_link", "tasks", "workers"})
        {
            assertPositive(r, key);
        }
        assertEquals(20000, r.get("tasks").asInt());
        assertEquals(2, r.get("workers").asInt());
        assertTrue(out.toString().contains("verdict:") && out.toString().contains("chain latency"), out::toString);
    }

    @Test
    void ioWritesTheJsonKeysAndCleansUp() throws IOException
    {
        final Path dir = tmp.resolve("data");
        final Path json = tmp.resolve("io.json");
        assertEquals(0, run("bench", "io", "--size", "64m", "--block", "1m", "--reps", "1", "--dir", dir.toString(),
            "--json", json.toString()), err::toString);
        final JsonNode r = new ObjectMapper().readTree(json.toFile());
        assertPositive(r, "raw_write_mb_s");
        assertPositive(r, "raw_read_mb_s");
        assertEquals(2, r.get("stores").size());
        for (final JsonNode s : r.get("stores"))
        {
            assertTrue(s.get("store").isTextual(), s::toString);
            assertPositive(s, "spill_mb_s");
            assertPositive(s, "restore_mb_s");
        }
        assertFalse(Files.exists(dir), "the benchmark should remove the directory it created");
    }

    @Test
    void ioLeavesAnExistingDirectoryEmpty() throws IOException
    {
        assertEquals(0, run("bench", "io", "--size", "8m", "--block", "1m", "--reps", "1", "--stores", "direct",
            "--dir", tmp.toString()), err::toString);
        try (Stream<Path> left = Files.list(tmp))
        {
            assertEquals(0, left.count());
        }
    }

    @Test
    void unknownOptionIsAUsageError()
    {
        final int status = run("bench", "overhead", "--no-such-option");
        assertEquals(2, status, "usage errors exit 2");
        assertTrue(err.toString().contains("--no-such-option"), err::toString);
    }

    @Test
    void aBadOptionPrintsOneLineAndWhereHelpIs()
    {
        assertEquals(2, run("run", "lu", "--no-such-option"));
        final String[] lines = err.toString().strip().split("\n");
        assertEquals(2, lines.length, err::toString);
        assertTrue(lines[0].startsWith("spillway: ") && lines[0].contains("--no-such-option"), lines[0]);
        assertEquals("Try 'spillway run --help' for the options and examples.", lines[1]);
    }

    /** Issue 18, defect 11: arguments every rank would refuse are reported once, and no rank starts. */
    @Test
    void aLaunchWhoseRanksWouldRefuseTheirArgumentsSaysSoOnce()
    {
        assertEquals(2, run("launch", "-n", "3", "run", "lu", "--no-such-option"));
        final String[] lines = err.toString().strip().split("\n");
        assertEquals(2, lines.length, err::toString);
        assertTrue(lines[0].startsWith("spillway: ") && lines[0].contains("--no-such-option"), lines[0]);
        assertEquals("Try 'spillway run --help' for the options and examples.", lines[1]);
        assertEquals("", out.toString());
    }

    @Test
    void badArgumentsOfRunExitTwoBeforeAnythingRuns()
    {
        final String[][] cases = {
            {"run", "matmull"}, {"run", "lu", "--n", "1000"}, {"run", "lu", "--tile", "0"},
            {"run", "lu", "--workers", "0"}, {"run", "lu", "--policy", "x"}, {"run", "lu", "--policy", "f,a"},
            {"run", "lu", "--store", "foo"}};
        final java.io.PrintStream original = System.err;
        for (final String[] args : cases)
        {
            err.getBuffer().setLength(0);
            out.getBuffer().setLength(0);
            final java.io.ByteArrayOutputStream stderr = new java.io.ByteArrayOutputStream();
            System.setErr(new java.io.PrintStream(stderr, true, java.nio.charset.StandardCharsets.UTF_8));
            try
            {
                assertEquals(2, run(args), () -> String.join(" ", args) + ": " + err);
            }
            finally
            {
                System.setErr(original);
            }
            assertTrue(err.toString().startsWith("spillway: "), () -> String.join(" ", args) + ": " + err);
            assertEquals("", out.toString(), () -> String.join(" ", args) + " printed before failing: " + out);
            assertEquals("", stderr.toString(java.nio.charset.StandardCharsets.UTF_8), () -> String.join(" ", args) +
                " printed the run's header or BLAS line before failing");
        }
    }

    /** Issue 18: the help of every command, subcommands of subcommands included, shows how to call it. */
    @Test
    void everyCommandsHelpHasExamples()
    {
        final java.util.List<String> without = new java.util.ArrayList<>();
        final java.util.Deque<picocli.CommandLine> commands = new java.util.ArrayDeque<>(
            java.util.List.of(SpillwayCli.commandLine()));
        int seen = 0;
        while (!commands.isEmpty())
        {
            final picocli.CommandLine c = commands.pop();
            seen++;
            if (!c.getUsageMessage().contains("Examples:\n  spillway "))
            {
                without.add(c.getCommandSpec().qualifiedName());
            }
            commands.addAll(c.getSubcommands().values());
        }
        assertEquals(java.util.List.of(), without, "commands whose --help has no example");
        assertTrue(seen > 10, "walked only " + seen + " commands");
    }

    @Test
    void everyCommandPrintsTheVersion()
    {
        for (final String[] args : new String[][] {{"-V"}, {"run", "-V"}, {"bench", "io", "-V"}, {"launch", "-V"}})
        {
            out.getBuffer().setLength(0);
            assertEquals(0, run(args), err::toString);
            assertTrue(out.toString().startsWith("spillway "), () -> String.join(" ", args) + ": '" + out + "'");
        }
    }

    @Test
    void checkpointBenchDocumentsAndChecksRanks()
    {
        assertEquals(0, run("bench", "checkpoint", "--help"));
        assertTrue(out.toString().contains("--ranks=R"), out::toString);
        assertEquals(2, run("bench", "checkpoint", "--ranks", "0"));
        assertTrue(err.toString().contains("--ranks must be at least 1"), err::toString);
    }

    @Test
    void p2fRecoveryBenchDocumentsAndChecksItsArguments()
    {
        assertEquals(0, run("bench", "p2f-recovery", "--help"));
        assertTrue(out.toString().contains("--clusters"), out::toString);
        assertEquals(2, run("bench", "p2f-recovery", "--clusters", "8"));
        assertTrue(err.toString().contains("--clusters from 1 to the ranks"), err::toString);
    }

    @Test
    void badSizeIsAUsageError()
    {
        assertNotEquals(0, run("bench", "io", "--size", "lots"));
        assertTrue(err.toString().contains("'lots' is not a size"), err::toString);
    }

    @Test
    void unwritableDirFailsNamingIt() throws IOException
    {
        final Path file = Files.writeString(tmp.resolve("plain-file"), "x");
        final Path dir = file.resolve("data");
        assertEquals(1, run("bench", "io", "--size", "8m", "--block", "1m", "--dir", dir.toString()));
        final String message = err.toString().strip();
        assertTrue(message.startsWith("spillway: ") && message.contains(dir.toString()), message);
        assertEquals(1, message.lines().count(), "one line without --verbose: " + message);
    }

    @Test
    void verboseOnASubcommandPrintsTheStackTrace() throws IOException
    {
        final Path file = Files.writeString(tmp.resolve("plain-file"), "x");
        assertEquals(1, run("bench", "io", "--verbose", "--dir", file.resolve("data").toString()));
        assertTrue(err.toString().contains("\tat dev.spillway.cli."), err::toString);
    }

    @Test
    void byteSizesAcceptBinarySuffixes()
    {
        final ByteSize sizes = new ByteSize();
        assertEquals(4096L, sizes.convert("4096"));
        assertEquals(512L << 20, sizes.convert("512m"));
        assertEquals(2L << 30, sizes.convert("2G"));
        assertEquals(4L << 20, sizes.convert("4MiB"));
        assertEquals(4L << 10, sizes.convert("4kb"));
        assertEquals(100L, sizes.convert("100b"));
        assertThrows(TypeConversionException.class, () -> sizes.convert("4ib"));
        assertThrows(TypeConversionException.class, () -> sizes.convert("-1m"));
    }
}
