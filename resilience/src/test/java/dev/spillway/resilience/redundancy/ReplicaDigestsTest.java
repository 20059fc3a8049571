package dev.spillway.resilience.redundancy;

import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.SpillwayConfig;
import dev.spillway.checkpoint.Cut;
import dev.spillway.io.StoreKind;
import dev.spillway.ranks.DistributedSpillway;
import dev.spillway.ranks.GlobalCheckpoints;
import dev.spillway.resilience.Checkpoints;
import dev.spillway.resilience.RingSweeps;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Replicas compare their generations at every global cut ({@link ReplicaDigests}, design §D.2): clean replicated runs
 * verify every cut; one bit flipped in one replica's object is caught at the first cut after it, by every replica of
 * that sphere, naming the object, and the rank stops for a restart instead of counting the cut.
 */
class ReplicaDigestsTest
{
    private static final int RANKS = 2;
    private static final int TILES = 8;
    private static final int BYTES = 4096;
    private static final int SWEEPS = 6;
    private static final int EVERY = 8;
    private static final Duration LIMIT = Duration.ofSeconds(300);
    /**
     * Steps of a chain of tasks on rank 0's own object after the ring, which no other rank reads: enough for two more
     * cuts after the flipped one, so the job cannot end before the verdict (a third cut waits for the global commit
     * of the first, which the mismatch withholds).
     */
    private static final int PRIVATE_STEPS = 32;
    /**
     * The flip lands in rank 0's own object, which never travels, so no receiver can see it first: the digests
     * are the only detection.
     */
    private static final String FLIPPED = "private 3";
    private static final long FLIPPED_AT = TILES * (SWEEPS + 1L) + 1 + 3;
    private static final long FIRST_CUT_AFTER = FLIPPED_AT / EVERY * EVERY + EVERY;

    @TempDir
    Path dir;

    @Test
    void cleanReplicasVerifyEveryCut() throws Exception
    {
        for (final String degree : List.of("2", "3"))
        {
            final Job job = run(degree, -1);
            assertTrue(job.failed().isEmpty(), degree + "x: " + job.failed());
            for (final Map.Entry<Integer, SortedMap<Long, DigestVote.Verdict>> e : job.verdicts().entrySet())
            {
                assertTrue(e.getValue().size() >= 3, degree + "x, slot " + e.getKey() + ": " + e.getValue());
                for (final DigestVote.Verdict v : e.getValue().values())
                {
                    assertEquals(DigestVote.Kind.VERIFIED, v.kind(), degree + "x, slot " + e.getKey() + ": " +
                        v.reason());
                }
            }
        }
    }

    @Test
    void aBitFlippedInOneReplicaIsCaughtAtTheNextCutByItsSphere() throws Exception
    {
        for (final String degree : List.of("2", "3"))
        {
            final Job job = run(degree, 1);
            for (final int slot : List.of(0, 1))
            {
                final SortedMap<Long, DigestVote.Verdict> verdicts = job.verdicts().get(slot);
                final DigestVote.Verdict caught = verdicts.get(FIRST_CUT_AFTER);
                assertNotNull(caught, degree + "x, slot " + slot + " compared no cut at " + FIRST_CUT_AFTER + ": " +
                    verdicts);
                assertEquals(degree.equals("2") ? DigestVote.Kind.ROLL_BACK : DigestVote.Kind.REPAIR, caught.kind(),
                    degree + "x, slot " + slot + ": " + caught.reason());
                assertEquals(Set.of(FIRST_CUT_AFTER), verdicts.tailMap(FIRST_CUT_AFTER).keySet(), "no later cut is " +
                    "compared once one failed");
                assertTrue(verdicts.headMap(FIRST_CUT_AFTER).size() >= 3, verdicts.toString());
                for (final DigestVote.Verdict v : verdicts.headMap(FIRST_CUT_AFTER).values())
                {
                    assertEquals(DigestVote.Kind.VERIFIED, v.kind(), "cuts before the flip: " + v.reason());
                }
                final Throwable failure = job.failed().get(slot);
                assertNotNull(failure, degree + "x: slot " + slot + " must stop for a restart");
                final String why = String.valueOf(failure.getMessage());
                assertTrue(why.contains("silent data corruption detected at the global cut at index " +
                    FIRST_CUT_AFTER), degree + "x, slot " + slot + ": " + failure);
                assertTrue(why.contains("=[own]"), "the differing object is named: " + why);
            }
        }
    }

    /** Each slot's verdicts and, for a slot whose run failed, why. */
    private record Job(Map<Integer, SortedMap<Long, DigestVote.Verdict>> verdicts, Map<Integer, Throwable> failed)
    {
    }

    /** Runs the program on every replica; {@code flipSlot} (or -1) flips a bit of rank 0's own object. */
    private Job run(final String degree, final int flipSlot) throws Exception
    {
        final Path root = dir.resolve(degree + "-" + flipSlot);
        final Map<Integer, SortedMap<Long, DigestVote.Verdict>> verdicts = new ConcurrentHashMap<>();
        final ReplicatedJob job = ReplicatedJob.run(RedundancyPlan.of(RANKS, RedundancyDegree.parse(degree)), LIMIT,
            (transport, exits) -> runSlot(transport, root.resolve("slot-" + transport.slot()),
                transport.slot() == flipSlot, verdicts, exits));
        return new Job(verdicts, job.failed);
    }

    /** @param exits as the slot's process would exit when its run fails, before its runtime closes. */
    private static void runSlot(final ReplicatedTransport transport, final Path root, final boolean flip,
        final Map<Integer, SortedMap<Long, DigestVote.Verdict>> verdicts, final Runnable exits) throws Exception
    {
        final int rank = transport.rank();
        final Path rankDir = root.resolve("rank-" + rank);
        final GlobalCheckpoints global = GlobalCheckpoints.everyTasks(EVERY, root, Cut.LOCAL, 0);
        final ReplicaDigests digests = new ReplicaDigests(transport, rankDir);
        global.copyCommitsTo(digests);
        final SpillwayConfig config = Spillway.builder().storeDir(root.resolve("spill")).store(StoreKind.DIRECT)
            .dramBudget(64L * BYTES).workers(2).storeSizing(256, BYTES)
            .checkpoints(Checkpoints.store(rankDir).keep(64).open(), global);
        try (DistributedSpillway ds = new DistributedSpillway(transport, config))
        {
            final Data[] tiles = new Data[TILES];
            for (int i = 0; i < TILES; i++)
            {
                tiles[i] = ds.data("tile " + i, BYTES, i * RANKS / TILES);
            }
            RingSweeps.submit(ds, tiles, BYTES, SWEEPS, name -> { }, (name, tile) -> { });
            final Data own = ds.data("own", BYTES, 0);
            ds.task("own init").write(own).submit(ctx ->
            {
                // A WRITE task writes every byte: a recycled buffer's old bytes would differ between replicas.
                final ByteBuffer b = ctx.buffer(own);
                for (int i = 0; i < BYTES; i += 8)
                {
                    b.putLong(i, i);
                }
            });
            for (int k = 0; k < PRIVATE_STEPS; k++)
            {
                final String name = "private " + k;
                ds.task(name).readWrite(own).submit(ctx ->
                {
                    final ByteBuffer b = ctx.buffer(own);
                    for (int i = 0; i < BYTES; i += 8)
                    {
                        b.putLong(i, b.getLong(i) * 31 + i + 7);
                    }
                    if (flip && name.equals(FLIPPED))
                    {
                        b.put(1234, (byte)(b.get(1234) ^ 0x10));
                    }
                });
            }
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
            verdicts.put(transport.slot(), digests.verdicts());
        }
    }
}
