package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.kernels.blas.OpenBlas;
import dev.spillway.memory.ByteUnits;
import dev.spillway.ranks.RankChildSupport;
import dev.spillway.resilience.RunChild;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 15's DRAM test: two ranks that copy every checkpoint to their buddy run under one memory cgroup (heap,
 * off-heap and page cache together), and each rank's peak resident set stays within its {@code --dram} budget, out of
 * which the copy's buffers come, plus a fixed allowance for the JVM itself: its heap cap and {@link #NATIVE} beside
 * it.
 */
class BuddyDramTest
{
    private static final long MIB = 1 << 20;
    private static final long BUDGET = 64 * MIB;
    private static final long HEAP = 128 * MIB;
    /** Outside the heap and the engine's budget: metaspace, code, thread stacks, GC structures, UCX, malloc. */
    private static final long NATIVE = 128 * MIB;
    /** The group: the launcher (a heap and its native part) and both ranks at their bound. */
    private static final long GROUP = (HEAP + NATIVE) + 2 * (BUDGET + HEAP + NATIVE);
    private static final long LIMIT_S = 600;

    @TempDir
    Path dir;

    @Test
    void eachRankStaysWithinItsBudgetAndAFixedAllowance() throws Exception
    {
        RankChildSupport.requireUcx();
        // LU of order 8192 needs OpenBLAS: the pure-Java BLAS would take many minutes.
        CiOrSkip.require(openBlas(), "OpenBLAS cannot be loaded (install libopenblas0)");
        final String unavailable = MemoryCgroup.unavailableReason();
        CiOrSkip.require(unavailable == null, "no memory cgroup to run the ranks in: " + unavailable);
        final Path json = dir.resolve("out.json");
        final List<String> command = new ArrayList<>(RunChild.java(List.of(), SpillwayCli.class.getName()));
        command.replaceAll(a -> a.startsWith("-Xmx") ? "-Xmx" + (HEAP >> 20) + "m" :
            a.equals("-Dspillway.blas=java") ? "-Dspillway.blas=openblas" : a);
        // 256 MiB of data per rank, four times its budget: a rank that held it all would exceed the bound.
        command.addAll(List.of("launch", "-n", "2", "run", "lu", "--n", "8192", "--tile", "512", "--workers", "1",
            "--dram", (BUDGET >> 20) + "m", "--checkpoint-dir", dir.resolve("ckpt").toString(), "--checkpoint-every",
            "300", "--buddy", "staged", "--dir", dir.resolve("spill").toString(), "--json", json.toString()));
        final Path log = dir.resolve("launch.log");
        final long peak;
        final long hits;
        final int exit;
        try (MemoryCgroup group = MemoryCgroup.create("spillway-test-dram-" + ProcessHandle.current().pid(), GROUP))
        {
            final ProcessBuilder pb = new ProcessBuilder(group.wrap(command)).redirectErrorStream(true)
                .redirectOutput(log.toFile());
            pb.environment().put("OPENBLAS_NUM_THREADS", "1");
            final Process launch = pb.start();
            try
            {
                assertTrue(launch.waitFor(LIMIT_S, TimeUnit.SECONDS), "launch did not end in " + LIMIT_S + " s:\n" +
                    Files.readString(log));
                exit = launch.exitValue();
            }
            finally
            {
                // The ranks too, so that the group can go.
                launch.descendants().forEach(ProcessHandle::destroyForcibly);
                launch.destroyForcibly().waitFor();
            }
            peak = group.peakBytes();
            hits = group.limitHits();
        }
        final String output = Files.readString(log);
        assertEquals(0, exit, "launch failed under a cap of " + ByteUnits.format(GROUP) + ":\n" + output);
        final JsonNode out = new ObjectMapper().readTree(json.toFile());
        assertTrue(out.get("verified").asBoolean(), output);
        assertTrue(out.get("checkpoints").asInt() >= 2 && output.contains("is durable at buddy rank"),
            "the ranks copied too few checkpoints to their buddies:\n" + output);
        final long bound = BUDGET + HEAP + NATIVE;
        for (final JsonNode rank : out.get("per_rank"))
        {
            final long rss = rank.get("peak_rss_bytes").asLong();
            System.out.printf("BuddyDramTest: rank %d peak RSS %s (bound %s: budget %s + heap %s + %s)%n",
                rank.get("rank").asInt(), ByteUnits.format(rss), ByteUnits.format(bound), ByteUnits.format(BUDGET),
                ByteUnits.format(HEAP), ByteUnits.format(NATIVE));
            assertTrue(rss > 0 && rss <= bound, "rank " + rank.get("rank").asInt() + "'s peak RSS " +
                ByteUnits.format(rss) + " exceeds its budget " + ByteUnits.format(BUDGET) + " plus the allowance " +
                ByteUnits.format(HEAP + NATIVE) + ":\n" + output);
        }
        System.out.printf("BuddyDramTest: the group's peak %s of its %s cap, reached %d times%n",
            ByteUnits.format(peak), ByteUnits.format(GROUP), hits);
    }

    private static boolean openBlas()
    {
        try
        {
            OpenBlas.load();
            return true;
        }
        catch (final RuntimeException | LinkageError e)
        {
            return false;
        }
    }
}
