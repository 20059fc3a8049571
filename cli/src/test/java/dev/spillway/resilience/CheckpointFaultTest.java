package dev.spillway.resilience;

import com.fasterxml.jackson.databind.JsonNode;
import dev.spillway.io.CrashPoints;
import dev.spillway.kernels.dense.Lu;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real faults on real processes: {@code spillway run lu} with checkpoints in a child JVM, killed with SIGKILL at named
 * points and at seeded random points of its progress, its checkpoints corrupted on disk; the resumed run's result
 * checksum must equal a failure-free run's. Stress profile: {@code -Dspillway.faultRuns=200}.
 */
@Tag("process")
@Timeout(1200)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CheckpointFaultTest
{
    private static final int RANDOM_RUNS = Integer.getInteger("spillway.faultRuns", 20);
    private static final long SEED = Long.getLong("spillway.faultSeed", 20261122L);
    private static final String EVERY = "150";

    @TempDir
    static Path root;

    private String golden;
    /** Task bodies a run starts: the kill points are drawn from these, so every draw lands inside the run. */
    private int goldenTasks;

    @BeforeAll
    void failureFreeRun() throws Exception
    {
        final Path work = Files.createDirectories(root.resolve("golden"));
        final RunChild child = RunChild.lu(work, null);
        final JsonNode out = child.complete();
        goldenTasks = child.tasksDone();
        golden = out.get("result_checksum").asText();
        assertTrue(out.get("verified").asBoolean(), out.toString());
        assertTrue(out.get("bytes_written").asLong() > 0, "the run must spill: " + out);
    }

    private Path fresh(final String name) throws IOException
    {
        return Files.createDirectories(root.resolve(name));
    }

    private JsonNode resume(final Path work) throws Exception
    {
        final JsonNode out = RunChild.lu(work, EVERY).complete();
        assertEquals(golden, out.get("result_checksum").asText(), "resumed result differs from the failure-free one");
        assertTrue(out.get("verified").asBoolean(), out.toString());
        return out;
    }

    @ParameterizedTest(name = "kill -9 at {0} (hit {1})")
    @CsvSource({
        CrashPoints.IN_TASK + ", 700",
        CrashPoints.CAPTURE + ", 400",
        CrashPoints.BEFORE_MANIFEST + ", 2",
        CrashPoints.MANIFEST_RENAME + ", 2",
        CrashPoints.SPILL_WRITE + ", 300"})
    void killedAtANamedPointResumesToTheSameResult(final String point, final int hit) throws Exception
    {
        final Path work = fresh(point);
        RunChild.lu(work, EVERY).crashAt(point, hit).start().killAtCrashPoint(point);
        final JsonNode out = resume(work);
        if (!point.equals(CrashPoints.SPILL_WRITE) && !point.equals(CrashPoints.IN_TASK))
        {
            assertTrue(out.get("restored_generation").asLong() >= 0, "a generation was committed before " + point +
                ": " + out);
        }
    }

    @Test
    void killedWhileRestoringThenResumedAgain() throws Exception
    {
        final Path work = fresh("restore");
        RunChild.lu(work, EVERY).crashAt(CrashPoints.BEFORE_MANIFEST, 3).start()
            .killAtCrashPoint(CrashPoints.BEFORE_MANIFEST);
        RunChild.lu(work, EVERY).crashAt(CrashPoints.RESTORE, 1).start().killAtCrashPoint(CrashPoints.RESTORE);
        final JsonNode out = resume(work);
        assertTrue(out.get("restored_generation").asLong() >= 1, out.toString());
    }

    @Test
    void restartTwiceInARow() throws Exception
    {
        final Path work = fresh("twice");
        RunChild.lu(work, EVERY).crashAt(CrashPoints.BEFORE_MANIFEST, 2).start()
            .killAtCrashPoint(CrashPoints.BEFORE_MANIFEST);
        final RunChild second = RunChild.lu(work, EVERY).crashAt(CrashPoints.BEFORE_MANIFEST, 2).start();
        second.killAtCrashPoint(CrashPoints.BEFORE_MANIFEST);
        assertTrue(second.output().contains("resuming from checkpoint generation"), second.output());
        final JsonNode out = resume(work);
        assertTrue(out.get("restored_generation").asLong() >= 2, "the second run's checkpoints are resumed: " + out);
    }

    /**
     * LU's submission order follows its column blocks, which the budget sizes, so the resumed run must keep the
     * checkpointed run's order ({@code submission-order} in the checkpoint directory) or its program hash differs.
     */
    @Test
    void restartWithOneWorkerAndHalfTheDram() throws Exception
    {
        final long data = (long)RunChild.N * RunChild.N * Double.BYTES;
        assertNotEquals(Lu.widthFor(data * 40 / 100, RunChild.N, RunChild.TILE, false),
            Lu.widthFor(data * 20 / 100, RunChild.N, RunChild.TILE, false), "the two budgets order LU differently");
        final Path work = fresh("elsewhere");
        RunChild.lu(work, EVERY).crashAt(CrashPoints.BEFORE_MANIFEST, 3).start()
            .killAtCrashPoint(CrashPoints.BEFORE_MANIFEST);
        final RunChild resumed = RunChild.lu(work, EVERY).on(1, "20%");
        final JsonNode out = resumed.complete();
        assertEquals(golden, out.get("result_checksum").asText());
        assertEquals(1, out.get("workers").asInt());
        assertTrue(out.get("restored_generation").asLong() >= 1, out.toString());
        assertTrue(resumed.output().contains("this run keeps that order"), resumed.output());
        assertFalse(Files.exists(work.resolve("ckpt").resolve("submission-order")), "forgotten once the run is done");
    }

    /**
     * Kills at random points of progress, not of wall time (which a loaded machine stretches): the N-th task body
     * to start parks at crash point {@link CrashPoints#IN_TASK}, N drawn from the golden run's task count, and the
     * child is killed while its other worker and IO thread (spills, checkpoint writes) run on.
     */
    @Test
    @Timeout(3600) // 20 kills and resumes take about 2 min on a quiet machine; this is a safety net only
    void randomKillPoints() throws Exception
    {
        final Random random = new Random(SEED);
        final StringBuilder hits = new StringBuilder();
        int restored = 0;
        for (int run = 0; run < RANDOM_RUNS; run++)
        {
            final Path work = fresh("random-" + run);
            final int hit = 1 + random.nextInt(goldenTasks);
            hits.append(' ').append(hit);
            RunChild.lu(work, EVERY).crashAt(CrashPoints.IN_TASK, hit).start().killAtCrashPoint(CrashPoints.IN_TASK);
            final JsonNode out = resume(work);
            restored += out.get("restored_generation").asLong() >= 0 ? 1 : 0;
        }
        System.out.printf("random kills: %d runs (seed %d) killed at task starts%s of %d; %d resumed from a " +
            "checkpoint%n", RANDOM_RUNS, SEED, hits, goldenTasks, restored);
        assertTrue(restored >= 1, "some kills come after a commit");
    }

    private Path twoGenerations(final String name) throws Exception
    {
        final Path work = fresh(name);
        RunChild.lu(work, EVERY).crashAt(CrashPoints.BEFORE_MANIFEST, 3).start()
            .killAtCrashPoint(CrashPoints.BEFORE_MANIFEST);
        return work;
    }

    private static Path newest(final Path work, final String prefix, final String suffix) throws IOException
    {
        try (Stream<Path> files = Files.list(work.resolve("ckpt")))
        {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix) &&
                    f.getFileName().toString().endsWith(suffix))
                .max(Comparator.comparingLong(CheckpointFaultTest::generationOf))
                .orElseThrow(() -> new AssertionError("no " + prefix + "*" + suffix + " in " + work));
        }
    }

    private static long generationOf(final Path f)
    {
        return Long.parseLong(f.getFileName().toString().replaceAll("\\D", ""));
    }

    private static void flipBit(final Path file, final Random random) throws IOException
    {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final long offset = (long)(random.nextDouble() * ch.size());
            final java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1);
            ch.read(b, offset);
            b.put(0, (byte)(b.get(0) ^ (1 << random.nextInt(8))));
            b.rewind();
            ch.write(b, offset);
        }
    }

    private static void truncate(final Path file, final long keep) throws IOException
    {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE))
        {
            ch.truncate(keep);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"bit-flip", "truncated-block", "torn-manifest"})
    void aCorruptGenerationIsDetectedAndAnOlderOneUsed(final String damage) throws Exception
    {
        final Path work = twoGenerations(damage);
        final Random random = new Random(SEED ^ damage.hashCode());
        final Path manifest = newest(work, "gen-", ".manifest");
        final Path blocks = work.resolve("ckpt").resolve("blocks-" + generationOf(manifest) + ".dat");
        switch (damage)
        {
            case "bit-flip" -> flipBit(blocks, random);
            case "truncated-block" -> truncate(blocks, Files.size(blocks) - 4096 - random.nextInt(4096));
            default -> truncate(manifest, Files.size(manifest) / 2);
        }
        final RunChild resumed = RunChild.lu(work, EVERY);
        final JsonNode out = resumed.complete();
        assertEquals(golden, out.get("result_checksum").asText(), "the result after falling back a generation");
        assertTrue(out.get("restored_generation").asLong() < generationOf(manifest), "fell back from generation " +
            generationOf(manifest) + ": " + out);
        assertTrue(resumed.output().contains("rejected"), "the fallback is reported:\n" + resumed.output());
    }

    /** The same bit flip with checksum verification off must not go unnoticed: this proves the test can fail. */
    @Test
    void withoutVerificationTheBitFlipCorruptsTheResult() throws Exception
    {
        final Path work = twoGenerations("negative-control");
        final Path manifest = newest(work, "gen-", ".manifest");
        final Path blocks = work.resolve("ckpt").resolve("blocks-" + generationOf(manifest) + ".dat");
        flipBit(blocks, new Random(SEED ^ "bit-flip".hashCode()));
        final RunChild resumed = RunChild.lu(work, EVERY).property("spillway.checkpoint.verify", "false").start();
        final int exit = resumed.await();
        final String out = resumed.output();
        final boolean sameResult = exit == 0 && out.contains("result checksum " + golden);
        assertFalse(sameResult, "with verification off the corrupt block went unnoticed, so this test could not " +
            "tell; output:\n" + out);
    }
}
