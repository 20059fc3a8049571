package dev.spillway.resilience.redundancy;

import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.SpillwayConfig;
import dev.spillway.checkpoint.CheckpointMode;
import dev.spillway.checkpoint.CheckpointStore;
import dev.spillway.checkpoint.Cut;
import dev.spillway.checkpoint.GenerationWriter;
import dev.spillway.checkpoint.RestorePoint;
import dev.spillway.io.StoreKind;
import dev.spillway.ranks.DistributedSpillway;
import dev.spillway.ranks.GlobalCheckpoints;
import dev.spillway.resilience.Checkpoints;
import dev.spillway.resilience.RingSweeps;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.IntUnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Silent data corruption against replication, counted (issue 16's SDC tests, design §D.5): seeded single-bit flips
 * in live objects of one replica are all detected at 2x, and at 3x outvoted and mended at the next cut, with no
 * rollback, so that every replica finishes with the reference; clean runs with other worker counts and DRAM budgets
 * per replica never mismatch, and without the comparison a flip reaches the result (the negative control).
 *
 * <p>The trial counts are system properties, for the stress profile:
 * {@code -Dspillway.sdc.flips=200 -Dspillway.sdc.flips-3x=200 -Dspillway.sdc.clean-runs=200}.
 */
class ReplicaSdcTest
{
    private static final int RANKS = 2;
    private static final int TILES = 6;
    private static final int BYTES = 4096;
    private static final int SWEEPS = 4;
    private static final int EVERY = 6;
    private static final int PRIVATE_STEPS = 24;
    private static final long RING_TASKS = (long)TILES * (SWEEPS + 1);
    private static final long TASKS = RING_TASKS + 1 + PRIVATE_STEPS;
    private static final Duration LIMIT = Duration.ofSeconds(300);
    private static final int FLIPS = Integer.getInteger("spillway.sdc.flips", 24);
    private static final int FLIPS_AT_3X = Integer.getInteger("spillway.sdc.flips-3x", 12);
    private static final int CLEAN_RUNS = Integer.getInteger("spillway.sdc.clean-runs", 50);
    private static final long SEED = Long.getLong("spillway.sdc.seed", 20261129L);
    private static final Map<String, Long> REFERENCE = reference();

    @TempDir
    Path dir;

    /** The slot whose checkpoint store refuses to mend, or -1. */
    private int refusesMends = -1;

    @Test
    void everySingleBitFlipIsDetectedBeforeTheRunEnds() throws Exception
    {
        final RedundancyPlan plan = RedundancyPlan.of(RANKS, RedundancyDegree.parse("2"));
        final SpherePlacement placement = plan.place(Collections.nCopies((int)plan.processes(), "localhost"));
        final Random random = new Random(SEED);
        int atCut = 0;
        int atReceiver = 0;
        int ringFlips = 0;
        for (int trial = 0; trial < FLIPS; trial++)
        {
            final Flip flip = Flip.random(random, trial % 2 == 0, placement);
            ringFlips += flip.task.startsWith("update") ? 1 : 0;
            final Run run = run(plan, "flip-" + trial, flip, true, CheckpointMode.SEMI_BLOCKING, false, slot -> 2,
                slot -> 64);
            final String what = "trial " + trial + " (" + flip + ")";
            if (run.job.failed.isEmpty())
            {
                fail(what + ": missed, every replica finished; verdicts " + run.verdicts);
            }
            final boolean byReceiver = run.job.failed.values().stream()
                .anyMatch(e -> e instanceof ReplicaMismatchException);
            final long first = (flip.index() / EVERY + 1) * EVERY;
            final SortedMap<Long, DigestVote.Verdict> flipped = run.verdicts.get(flip.slot);
            final DigestVote.Verdict atFirst = flipped == null ? null : flipped.get(first);
            if (!byReceiver)
            {
                assertNotNull(atFirst, what + ": no receiver saw it, so the cut at " + first + " must compare it: " +
                    run.verdicts + "; failures " + run.job.failed);
                assertEquals(DigestVote.Kind.ROLL_BACK, atFirst.kind(), what + ": " + atFirst.reason());
                for (final int slot : placement.slotsOf(flip.rank))
                {
                    run.verdicts.get(slot).headMap(first).values().forEach(v ->
                        assertEquals(DigestVote.Kind.VERIFIED, v.kind(), what + ", an earlier cut: " + v.reason()));
                    final Throwable why = run.job.failed.get(slot);
                    assertNotNull(why, what + ": slot " + slot + " must stop for a restart");
                    assertTrue(String.valueOf(why.getMessage()).contains("silent data corruption detected at the " +
                        "global cut at index " + first), what + ": slot " + slot + ": " + why);
                }
            }
            atCut += atFirst != null && atFirst.kind() == DigestVote.Kind.ROLL_BACK ? 1 : 0;
            atReceiver += byReceiver ? 1 : 0;
        }
        System.out.printf(Locale.ROOT, "ReplicaSdcTest: n=%d single-bit flips (%d in ring tiles, which travel, %d in " +
                "an object that never does), detected %d: at the first cut after the flip %d, at a receiver %d; " +
                "masked 0, missed 0; rule of three: miss rate < 3/%d = %.1f %% (95 %% confidence)%n", FLIPS,
            ringFlips, FLIPS - ringFlips, FLIPS, atCut, atReceiver, FLIPS, 300.0 / FLIPS);
    }

    @Test
    void atThreeReplicasEveryFlippedReplicaIsOutvotedAndMendedWithoutARollback() throws Exception
    {
        final RedundancyPlan plan = RedundancyPlan.of(RANKS, RedundancyDegree.parse("3"));
        final SpherePlacement placement = plan.place(Collections.nCopies((int)plan.processes(), "localhost"));
        final Random random = new Random(SEED + 2);
        long copies = 0;
        int travelled = 0;
        int spilled = 0;
        for (int trial = 0; trial < FLIPS_AT_3X; trial++)
        {
            final Flip flip = Flip.random(random, trial % 2 == 0, placement);
            final int budget = trial % 3 == 0 ? 4 : 64;
            spilled += budget == 4 ? 1 : 0;
            final Run run = run(plan, "flip3-" + trial, flip, true, CheckpointMode.BLOCKING, true, slot -> 2,
                slot -> budget);
            final String what = "3x trial " + trial + " (" + flip + ", " + budget + " tiles of DRAM)";
            assertTrue(run.job.failed.isEmpty(), what + ": no replica stops: " + run.job.failed);
            final long first = (flip.index() / EVERY + 1) * EVERY;
            for (final int slot : placement.slotsOf(flip.rank))
            {
                final SortedMap<Long, DigestVote.Verdict> verdicts = run.verdicts.get(slot);
                assertEquals(DigestVote.Kind.OUTVOTED, verdicts.get(first).kind(), what + ", slot " + slot + ": " +
                    verdicts);
                assertEquals(List.of(flip.slot), List.copyOf(verdicts.get(first).minority()), what);
                // Every other cut verifies: once mended, the flipped replica's state equals its partners' again.
                verdicts.forEach((index, v) -> assertTrue(index == first || v.kind() == DigestVote.Kind.VERIFIED,
                    what + ", slot " + slot + ", the cut at " + index + ": " + v.reason()));
                assertTrue(verdicts.lastKey() > first, what + ": a cut after the mend compares it: " + verdicts);
            }
            assertEquals(List.of(first), List.copyOf(run.mended.get(flip.slot).keySet()), what + ": mended once");
            run.outputs.forEach((slot, outputs) ->
            {
                final String last = placement.slotsOf(0).contains(slot) ? "private " + (PRIVATE_STEPS - 1) :
                    "update " + (TILES - 1) + " sweep " + (SWEEPS - 1);
                assertTrue(outputs.containsKey(last), what + ": slot " + slot + " finishes with " + last);
                outputs.forEach((task, hash) ->
                {
                    // The flipped replica's tasks between its flip and the cut saw the flip: those are mended.
                    if (slot != flip.slot || Flip.index(task) >= first)
                    {
                        assertEquals(REFERENCE.get(task), hash, what + ": slot " + slot + "'s " + task);
                    }
                });
            });
            final long outvoted = run.outvoted.values().stream().mapToLong(Long::longValue).sum();
            copies += outvoted;
            travelled += outvoted > 0 ? 1 : 0;
        }
        System.out.printf(Locale.ROOT, "ReplicaSdcTest: n=%d single-bit flips at 3x (%d with 4 tiles of DRAM, so " +
            "objects spill), every flipped replica outvoted at the first cut after its flip and mended there, no " +
            "rollback, every replica finished with the reference; %d flips travelled first, %d copies outvoted at " +
            "their receivers%n",
            FLIPS_AT_3X, spilled, travelled, copies);
    }

    @Test
    void atThreeReplicasWithoutBlockingCutsTheOutvotedReplicaLeavesItsSphere() throws Exception
    {
        final RedundancyPlan plan = RedundancyPlan.of(RANKS, RedundancyDegree.parse("3"));
        final SpherePlacement placement = plan.place(Collections.nCopies((int)plan.processes(), "localhost"));
        final Flip flip = new Flip(placement.slotsOf(0).get(1), 0, "private 2", 1234, 4);
        final Run run = run(plan, "flip3-leaves", flip, true, CheckpointMode.SEMI_BLOCKING, false, slot -> 2,
            slot -> 64);
        assertEquals(List.of(flip.slot), List.copyOf(run.job.failed.keySet()), "only the flipped replica stops: " +
            run.job.failed);
        final long first = (flip.index() / EVERY + 1) * EVERY;
        final String why = String.valueOf(run.job.failed.get(flip.slot).getMessage());
        assertTrue(why.contains("silent data corruption detected at the global cut at index " + first) &&
            why.contains("outvoted, this replica leaves its sphere"), why);
        final String last = "private " + (PRIVATE_STEPS - 1);
        for (final int slot : placement.slotsOf(0))
        {
            if (slot != flip.slot)
            {
                assertEquals(REFERENCE.get(last), run.outputs.get(slot).get(last), "slot " + slot + "'s result");
            }
        }
    }

    @Test
    void anOutvotedReplicaWhoseRuntimeCannotMendLeavesItsSphereAndRunsNoTaskPastTheCut() throws Exception
    {
        final RedundancyPlan plan = RedundancyPlan.of(RANKS, RedundancyDegree.parse("3"));
        final SpherePlacement placement = plan.place(Collections.nCopies((int)plan.processes(), "localhost"));
        final Flip flip = new Flip(placement.slotsOf(0).get(2), 0, "private 2", 1234, 4);
        refusesMends = flip.slot;
        final Run run = run(plan, "flip3-unmended", flip, true, CheckpointMode.BLOCKING, true, slot -> 2, slot -> 64);
        assertEquals(List.of(flip.slot), List.copyOf(run.job.failed.keySet()), "only the flipped replica stops: " +
            run.job.failed);
        final long first = (flip.index() / EVERY + 1) * EVERY;
        final String why = String.valueOf(run.job.failed.get(flip.slot).getMessage());
        assertTrue(why.contains("silent data corruption detected at the global cut at index " + first) &&
            why.contains("outvoted, and its runtime could not mend [own]") && why.contains("no space left (test)") &&
            why.contains("this replica leaves its sphere"), why);
        run.outputs.get(flip.slot).keySet().forEach(task -> assertTrue(Flip.index(task) < first, "slot " +
            flip.slot + " ran '" + task + "' past the cut at " + first + " it could not mend"));
        final String last = "private " + (PRIVATE_STEPS - 1);
        for (final int slot : placement.slotsOf(0))
        {
            if (slot != flip.slot)
            {
                assertEquals(REFERENCE.get(last), run.outputs.get(slot).get(last), "slot " + slot + "'s result");
            }
        }
    }

    /** @return {@code store}, or for the slot {@link #refusesMends} names one that refuses to mend, as a full disk. */
    private CheckpointStore store(final int slot, final CheckpointStore store)
    {
        if (slot != refusesMends)
        {
            return store;
        }
        return new CheckpointStore()
        {
            @Override
            public RestorePoint restore(final Consumer<String> log) throws IOException
            {
                return store.restore(log);
            }

            @Override
            public GenerationWriter begin(final Cut cut) throws IOException
            {
                return store.begin(cut);
            }

            @Override
            public long nextGeneration()
            {
                return store.nextGeneration();
            }

            @Override
            public long incarnation()
            {
                return store.incarnation();
            }

            @Override
            public void progress(final long completedTasks)
            {
                store.progress(completedTasks);
            }

            @Override
            public void markComplete() throws IOException
            {
                store.markComplete();
            }

            @Override
            public void mend(final Cut cut, final Map<String, ByteBuffer> blocks) throws IOException
            {
                throw new IOException("no space left (test)");
            }

            @Override
            public void close() throws IOException
            {
                store.close();
            }
        };
    }

    @Test
    void cleanRunsWithOtherWorkersAndBudgetsPerReplicaNeverMismatch() throws Exception
    {
        final Random random = new Random(SEED + 1);
        int cuts = 0;
        for (int n = 0; n < CLEAN_RUNS; n++)
        {
            final boolean three = n % 5 == 4;
            final RedundancyPlan plan = RedundancyPlan.of(RANKS, RedundancyDegree.parse(three ? "3" : "2"));
            final int[] workers = new int[(int)plan.processes()];
            final int[] budgets = new int[workers.length];
            for (int s = 0; s < workers.length; s++)
            {
                workers[s] = 1 + random.nextInt(2);
                budgets[s] = List.of(4, 6, 64).get(random.nextInt(3));
            }
            final Run run = run(plan, "clean-" + n, null, true,
                three || n % 5 == 2 ? CheckpointMode.BLOCKING : CheckpointMode.SEMI_BLOCKING, three, s -> workers[s],
                s -> budgets[s]);
            final String what = "clean run " + n + " (" + plan.degree() + "x, " + (three || n % 5 == 2 ? "blocking" :
                "semi-blocking") + " cuts, workers " +
                Arrays.toString(workers) + ", budgets in tiles " + Arrays.toString(budgets) + ")";
            assertTrue(run.job.failed.isEmpty(), what + ": " + run.job.failed);
            for (final Map.Entry<Integer, SortedMap<Long, DigestVote.Verdict>> e : run.verdicts.entrySet())
            {
                assertTrue(e.getValue().size() >= 3, what + ", slot " + e.getKey() + ": " + e.getValue());
                e.getValue().values().forEach(v -> assertEquals(DigestVote.Kind.VERIFIED, v.kind(), what + ": " +
                    v.reason()));
                cuts += e.getValue().size();
            }
            run.outputs.forEach((slot, outputs) -> outputs.forEach((task, hash) ->
                assertEquals(REFERENCE.get(task), hash, what + ": slot " + slot + "'s " + task)));
        }
        System.out.printf(Locale.ROOT, "ReplicaSdcTest: %d clean replicated runs, %d cut comparisons, 0 mismatches%n",
            CLEAN_RUNS, cuts);
    }

    @Test
    void withoutTheComparisonAFlipReachesTheResult() throws Exception
    {
        final RedundancyPlan plan = RedundancyPlan.of(RANKS, RedundancyDegree.parse("2"));
        final String last = "private " + (PRIVATE_STEPS - 1);
        final Flip flip = new Flip(0, 0, "private 2", 1234, 4);
        final Run run = run(plan, "no-comparison", flip, false, CheckpointMode.SEMI_BLOCKING, false, slot -> 2,
            slot -> 64);
        assertTrue(run.job.failed.isEmpty(), "nothing compares generations, so nothing stops: " + run.job.failed);
        assertNotEquals(REFERENCE.get(last), run.outputs.get(0).get(last), "the flipped replica's result");
        assertEquals(REFERENCE.get(last), run.outputs.get(1).get(last), "its partner's result");
    }

    /** One bit of the output of one task on one replica. */
    private record Flip(int slot, int rank, String task, int offset, int bit)
    {
        static Flip random(final Random random, final boolean ring, final SpherePlacement placement)
        {
            final String task;
            final int rank;
            if (ring)
            {
                final int tile = random.nextInt(TILES);
                task = "update " + tile + " sweep " + random.nextInt(SWEEPS);
                rank = tile * RANKS / TILES;
            }
            else
            {
                // Two more cuts must follow the flip's, so the run cannot end before the verdict.
                final long lastFlippable = TASKS - 2 * EVERY - 1;
                final long latest = (lastFlippable / EVERY) * EVERY - 1;
                task = "private " + random.nextInt((int)(latest - RING_TASKS));
                rank = 0;
            }
            final List<Integer> slots = placement.slotsOf(rank);
            return new Flip(slots.get(random.nextInt(slots.size())), rank, task, random.nextInt(BYTES),
                random.nextInt(8));
        }

        /** @return the flipped task's global submission index. */
        long index()
        {
            return index(task);
        }

        /** @return {@code task}'s global submission index. */
        static long index(final String task)
        {
            final String[] words = task.split(" ");
            return task.startsWith("update") ? TILES * (Long.parseLong(words[3]) + 1) + Long.parseLong(words[1]) :
                RING_TASKS + 1 + Long.parseLong(words[1]);
        }

        void apply(final ByteBuffer b)
        {
            b.put(offset, (byte)(b.get(offset) ^ (1 << bit)));
        }
    }

    /**
     * A job's outcome: failures, each slot's verdicts and mends, task outputs (hashed) and copies outvoted as it
     * received.
     */
    private record Run(ReplicatedJob job, Map<Integer, SortedMap<Long, DigestVote.Verdict>> verdicts,
        Map<Integer, SortedMap<Long, SortedSet<String>>> mended, Map<Integer, Map<String, Long>> outputs,
        Map<Integer, Long> outvoted)
    {
    }

    /**
     * @param mode the runtime's cuts: blocking ones wait for the release, which a replica that does not mend gives at
     *             once.
     * @param mend whether an outvoted replica is mended in place: only with blocking cuts.
     */
    private Run run(final RedundancyPlan plan, final String name, final Flip flip, final boolean compare,
        final CheckpointMode mode, final boolean mend, final IntUnaryOperator workers,
        final IntUnaryOperator budgetTiles)
        throws Exception
    {
        final Path root = dir.resolve(name);
        final Map<Integer, SortedMap<Long, DigestVote.Verdict>> verdicts = new ConcurrentHashMap<>();
        final Map<Integer, SortedMap<Long, SortedSet<String>>> mended = new ConcurrentHashMap<>();
        final Map<Integer, Map<String, Long>> outputs = new ConcurrentHashMap<>();
        final Map<Integer, Long> outvoted = new ConcurrentHashMap<>();
        final ReplicatedJob job = ReplicatedJob.run(plan, LIMIT, (transport, exits) ->
        {
            final int slot = transport.slot();
            final Path slotRoot = root.resolve("slot-" + slot);
            final Path rankDir = slotRoot.resolve("rank-" + transport.rank());
            final GlobalCheckpoints global = GlobalCheckpoints.everyTasks(EVERY, slotRoot, Cut.LOCAL, 0);
            final ReplicaDigests digests = compare ? new ReplicaDigests(transport, rankDir, mend) : null;
            if (digests != null)
            {
                global.copyCommitsTo(digests);
            }
            final Map<String, Long> mine = new ConcurrentHashMap<>();
            outputs.put(slot, mine);
            final Flip here = flip != null && flip.slot == slot ? flip : null;
            final SpillwayConfig config = Spillway.builder().storeDir(slotRoot.resolve("spill")).store(StoreKind.DIRECT)
                .dramBudget((long)budgetTiles.applyAsInt(slot) * BYTES).workers(workers.applyAsInt(slot))
                .storeSizing(256, BYTES).checkpoints(store(slot, Checkpoints.store(rankDir).keep(3).open()), global)
                .checkpointMode(mode);
            try (DistributedSpillway ds = new DistributedSpillway(transport, config))
            {
                submit(ds, here, mine);
                try
                {
                    ds.awaitAll();
                }
                catch (final RuntimeException e)
                {
                    exits.run();
                    throw e;
                }
            }
            finally
            {
                if (digests != null)
                {
                    verdicts.put(slot, digests.verdicts());
                    mended.put(slot, digests.mended());
                }
                outvoted.put(slot, transport.figures().copiesOutvoted());
            }
        });
        return new Run(job, verdicts, mended, outputs, outvoted);
    }

    /** The ring, then a chain of tasks on rank 0's own object, which never travels; outputs hashed by task. */
    private static void submit(final DistributedSpillway ds, final Flip flip, final Map<String, Long> outputs)
    {
        final Data[] tiles = new Data[TILES];
        for (int i = 0; i < TILES; i++)
        {
            tiles[i] = ds.data("tile " + i, BYTES, i * RANKS / TILES);
        }
        RingSweeps.submit(ds, tiles, BYTES, SWEEPS, task -> { }, (task, tile) ->
        {
            if (flip != null && flip.task.equals(task))
            {
                flip.apply(tile);
            }
            outputs.put(task, hash(tile));
        });
        final Data own = ds.data("own", BYTES, 0);
        ds.task("own init").write(own).submit(ctx ->
        {
            final ByteBuffer b = ctx.buffer(own);
            for (int i = 0; i < BYTES; i += 8)
            {
                b.putLong(i, i);
            }
        });
        for (int k = 0; k < PRIVATE_STEPS; k++)
        {
            final String task = "private " + k;
            ds.task(task).readWrite(own).submit(ctx ->
            {
                final ByteBuffer b = ctx.buffer(own);
                for (int i = 0; i < BYTES; i += 8)
                {
                    b.putLong(i, b.getLong(i) * 31 + i + 7);
                }
                if (flip != null && flip.task.equals(task))
                {
                    flip.apply(b);
                }
                outputs.put(task, hash(b));
            });
        }
    }

    private static long hash(final ByteBuffer b)
    {
        long h = 0;
        for (int i = 0; i < BYTES; i += 8)
        {
            h = h * 0x9E3779B97F4A7C15L + b.getLong(i);
        }
        return h;
    }

    /** Every task's output hash, computed in plain arrays in submission order (sequential semantics). */
    private static Map<String, Long> reference()
    {
        final Map<String, Long> out = new HashMap<>();
        final ByteBuffer[] t = new ByteBuffer[TILES];
        for (int i = 0; i < TILES; i++)
        {
            t[i] = ByteBuffer.allocate(BYTES);
            for (int k = 0; k < BYTES; k += 8)
            {
                t[i].putLong(k, i * 1_000_003L + k);
            }
        }
        for (int s = 0; s < SWEEPS; s++)
        {
            for (int i = 0; i < TILES; i++)
            {
                final ByteBuffer m = t[i];
                final ByteBuffer l = t[(i + TILES - 1) % TILES];
                final ByteBuffer r = t[(i + 1) % TILES];
                for (int k = 0; k < BYTES; k += 8)
                {
                    m.putLong(k, m.getLong(k) * 31 + (l.getLong(k) ^ Long.rotateLeft(r.getLong(k), 7)));
                }
                out.put("update " + i + " sweep " + s, hash(m));
            }
        }
        final ByteBuffer own = ByteBuffer.allocate(BYTES);
        for (int i = 0; i < BYTES; i += 8)
        {
            own.putLong(i, i);
        }
        for (int k = 0; k < PRIVATE_STEPS; k++)
        {
            for (int i = 0; i < BYTES; i += 8)
            {
                own.putLong(i, own.getLong(i) * 31 + i + 7);
            }
            out.put("private " + k, hash(own));
        }
        return out;
    }
}
