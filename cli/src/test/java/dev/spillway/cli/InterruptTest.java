package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SIGTERM and SIGINT in the middle of {@code spillway run lu} (a child JVM, signalled once its progress shows tasks
 * done): one line {@code spillway: interrupted}, no stack trace, exit 143 or 130, the spill files gone, and with
 * checkpoints the committed generation kept, so running the command again resumes from it.
 */
@Tag("process")
@Timeout(900)
class InterruptTest
{
    /** Printed while the compute phase runs: "spillway: lu compute 427/1496 tasks (29%), ...". */
    private static final String PROGRESS = "spillway: lu compute \\d+/\\d+ tasks";

    @TempDir
    Path work;

    private static List<String> lu(final Path spill, final String... more)
    {
        final List<String> args = new ArrayList<>(List.of("run", "lu", "--n", "4096", "--tile", "256", "--dram",
            "25%", "--workers", "2", "--dir", spill.toString()));
        args.addAll(List.of(more));
        return args;
    }

    @Test
    void sigtermCancelsRemovesTheSpillDirectoryAndExits143() throws Exception
    {
        final Path spill = work.resolve("spill");
        final CliChild run = CliChild.start(work, "term", lu(spill));
        try
        {
            run.awaitLine(PROGRESS);
            run.signal("TERM");
            assertEquals(143, run.awaitExit(), run::output);
            assertInterruptedOnce(run.output());
            assertFalse(Files.exists(spill), "the run created " + spill + "; it should be gone: " + list(spill));
        }
        finally
        {
            run.destroy();
        }
    }

    @Test
    void sigintKeepsTheCommittedCheckpointAndTheRerunResumesFromIt() throws Exception
    {
        final Path spill = Files.createDirectories(work.resolve("spill"));
        final Path mine = Files.writeString(spill.resolve("keep.txt"), "not the run's");
        final Path ckpt = work.resolve("ckpt");
        final Path json = work.resolve("rerun.json");
        final List<String> args = lu(spill, "--checkpoint-dir", ckpt.toString(), "--checkpoint-every", "50");
        final CliChild run = CliChild.start(work, "int", args);
        try
        {
            run.awaitLine(PROGRESS);
            run.await("a committed checkpoint in " + ckpt, () -> manifests(ckpt) > 0);
            run.signal("INT");
            assertEquals(130, run.awaitExit(), run::output);
            assertInterruptedOnce(run.output());
            assertEquals(List.of(mine), list(spill), "only the user's file may stay in " + spill);
            assertTrue(manifests(ckpt) > 0, "the committed generation was removed: " + list(ckpt));
        }
        finally
        {
            run.destroy();
        }

        final List<String> again = new ArrayList<>(args);
        again.addAll(List.of("--json", json.toString()));
        final CliChild rerun = CliChild.start(work, "rerun", again);
        try
        {
            assertEquals(0, rerun.awaitExit(), rerun::output);
            assertTrue(rerun.output().contains("resuming from checkpoint generation"), rerun::output);
            final JsonNode out = new ObjectMapper().readTree(json.toFile());
            assertTrue(out.get("restored_generation").asLong() >= 0, out::toString);
            assertTrue(out.get("verified").asBoolean(), out::toString);
        }
        finally
        {
            rerun.destroy();
        }
    }

    /** The interrupt's line comes once, last, and no stack trace or exception comes with it. */
    static void assertInterruptedOnce(final String output)
    {
        final List<String> lines = output.lines().filter(l -> !l.isBlank()).toList();
        assertEquals(1, lines.stream().filter("spillway: interrupted"::equals).count(), output);
        assertEquals("spillway: interrupted", lines.get(lines.size() - 1), "nothing may follow the line:\n" + output);
        assertFalse(output.contains("\tat ") || output.contains("Exception") || output.contains("internal error"),
            "a stack trace or an error came with the interrupt:\n" + output);
    }

    private static long manifests(final Path dir)
    {
        try (Stream<Path> files = Files.list(dir))
        {
            return files.filter(f -> f.getFileName().toString().matches("gen-\\d+\\.manifest")).count();
        }
        catch (final IOException e)
        {
            return 0;
        }
    }

    private static List<Path> list(final Path dir)
    {
        try (Stream<Path> files = Files.list(dir))
        {
            return files.toList();
        }
        catch (final IOException e)
        {
            return List.of();
        }
    }
}
