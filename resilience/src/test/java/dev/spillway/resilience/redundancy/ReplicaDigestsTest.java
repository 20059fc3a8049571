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
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Replicas compare their generations at every global cut ({@link ReplicaDigests}, design §D.2): clean replicated runs
 * verify every cut; one bit flipped in one replica's object is caught at the first cut after it, by every replica of
 * that sphere, naming the object. Of two replicas the rank stops for a restart instead of counting the cut; of three
 * the outvoted one leaves and the majority runs on to the right result.
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
    void aBitFlippedInOneOfTwoReplicasIsCaughtAtTheNextCutAndStopsTheRankForARestart() throws Exception
    {
        final Job job = run("2", 1);
        for (final int slot : List.of(0, 1))
        {
            final SortedMap<Long, DigestVote.Verdict> verdicts = caughtAfterVerifiedCuts(job, slot,
                DigestVote.Kind.ROLL_BACK);
            assertEquals(Set.of(FIRST_CUT_AFTER), verdicts.tailMap(FIRST_CUT_AFTER).keySet(), "no later cut is " +
                "compared once one failed");
            final String why = stopped(job, slot);
            assertTrue(why.contains("=[own]"), "the differing object is named: " + why);
        }
    }

    @Test
    void aBitFlippedInOneOfThreeReplicasIsOutvotedAndTheMajorityRunsOnWithoutARollback() throws Exception
    {
        final Job job = run("3", 1);
        final SortedMap<Long, DigestVote.Verdict> outvoted = caughtAfterVerifiedCuts(job, 1,
            DigestVote.Kind.OUTVOTED);
        assertEquals(Set.of(FIRST_CUT_AFTER), outvoted.tailMap(FIRST_CUT_AFTER).keySet(), "the outvoted replica " +
            "compares no later cut");
        final String why = stopped(job, 1);
        assertTrue(why.contains("{0=[own], 2=[own]}") && why.contains("outvoted, this replica leaves its sphere"),
            why);
        for (final int slot : List.of(0, 2))
        {
            final SortedMap<Long, DigestVote.Verdict> verdicts = caughtAfterVerifiedCuts(job, slot,
                DigestVote.Kind.OUTVOTED);
            assertEquals(Map.of(1, Set.of("own")), verdicts.get(FIRST_CUT_AFTER).objects());
            final SortedMap<Long, DigestVote.Verdict> later = verdicts.tailMap(FIRST_CUT_AFTER + 1);
            assertFalse(later.isEmpty(), "slot " + slot + " runs on to compare later cuts: " + verdicts);
            later.values().forEach(v -> assertEquals(DigestVote.Kind.VERIFIED, v.kind(), v.reason()));
        }
        assertEquals(Set.of(1), job.failed().keySet(), "only the outvoted replica stops: " + job.failed());
        assertEquals(Set.of(0, 2), job.own().keySet(), "the majority finishes: " + job.own());
        assertEquals(expectedOwn(), job.own().get(0), "slot 0's own object");
        assertEquals(expectedOwn(), job.own().get(2), "slot 2's own object");
    }

    /**
     * @return {@code slot}'s verdicts, after checking that the first cut after the flip got {@code kind} and every
     *         earlier cut (at least three) was verified.
     */
    private static SortedMap<Long, DigestVote.Verdict> caughtAfterVerifiedCuts(final Job job, final int slot,
        final DigestVote.Kind kind)
    {
        final SortedMap<Long, DigestVote.Verdict> verdicts = job.verdicts().get(slot);
        final DigestVote.Verdict caught = verdicts.get(FIRST_CUT_AFTER);
        assertNotNull(caught, "slot " + slot + " compared no cut at " + FIRST_CUT_AFTER + ": " + verdicts);
        assertEquals(kind, caught.kind(), "slot " + slot + ": " + caught.reason());
        assertTrue(verdicts.headMap(FIRST_CUT_AFTER).size() >= 3, verdicts.toString());
        for (final DigestVote.Verdict v : verdicts.headMap(FIRST_CUT_AFTER).values())
        {
            assertEquals(DigestVote.Kind.VERIFIED, v.kind(), "cuts before the flip: " + v.reason());
        }
        return verdicts;
    }

    /** @return why {@code slot} stopped, checked to name the cut. */
    private static String stopped(final Job job, final int slot)
    {
        final Throwable failure = job.failed().get(slot);
        assertNotNull(failure, "slot " + slot + " must stop");
        final String why = String.valueOf(failure.getMessage());
        assertTrue(why.contains("silent data corruption detected at the global cut at index " + FIRST_CUT_AFTER),
            "slot " + slot + ": " + failure);
        return why;
    }

    /** @return the CRC32C rank 0's own object ends with, computed here without the runtime. */
    private static long expectedOwn()
    {
        final ByteBuffer b = ByteBuffer.allocate(BYTES).order(ByteOrder.nativeOrder());
        for (int i = 0; i < BYTES; i += 8)
        {
            long v = i;
            for (int k = 0; k < PRIVATE_STEPS; k++)
            {
                v = v * 31 + i + 7;
            }
            b.putLong(i, v);
        }
        final CRC32C crc = new CRC32C();
        crc.update(b);
        return crc.getValue();
    }

    /** Each slot's verdicts, for a slot whose run failed why, and for rank 0's slots that finished its own object. */
    private record Job(Map<Integer, SortedMap<Long, DigestVote.Verdict>> verdicts, Map<Integer, Throwable> failed,
        Map<Integer, Long> own)
    {
    }

    /** Runs the program on every replica; {@code flipSlot} (or -1) flips a bit of rank 0's own object. */
    private Job run(final String degree, final int flipSlot) throws Exception
    {
        final Path root = dir.resolve(degree + "-" + flipSlot);
        final Map<Integer, SortedMap<Long, DigestVote.Verdict>> verdicts = new ConcurrentHashMap<>();
        final Map<Integer, Long> own = new ConcurrentHashMap<>();
        final ReplicatedJob job = ReplicatedJob.run(RedundancyPlan.of(RANKS, RedundancyDegree.parse(degree)), LIMIT,
            (transport, exits) -> runSlot(transport, root.resolve("slot-" + transport.slot()),
                transport.slot() == flipSlot, verdicts, own, exits));
        return new Job(verdicts, job.failed, own);
    }

    /** @param exits as the slot's process would exit when its run fails, before its runtime closes. */
    private static void runSlot(final ReplicatedTransport transport, final Path root, final boolean flip,
        final Map<Integer, SortedMap<Long, DigestVote.Verdict>> verdicts, final Map<Integer, Long> own,
        final Runnable exits) throws Exception
    {
        final int rank = transport.rank();
        final Path rankDir = root.resolve("rank-" + rank);
        final GlobalCheckpoints global = GlobalCheckpoints.everyTasks(EVERY, root, Cut.LOCAL, 0);
        final ReplicaDigests digests = new ReplicaDigests(transport, rankDir, false);
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
            final Data mine = ds.data("own", BYTES, 0);
            ds.task("own init").write(mine).submit(ctx ->
            {
                // A WRITE task writes every byte: a recycled buffer's old bytes would differ between replicas.
                final ByteBuffer b = ctx.buffer(mine);
                for (int i = 0; i < BYTES; i += 8)
                {
                    b.putLong(i, i);
                }
            });
            for (int k = 0; k < PRIVATE_STEPS; k++)
            {
                final String name = "private " + k;
                ds.task(name).readWrite(mine).submit(ctx ->
                {
                    final ByteBuffer b = ctx.buffer(mine);
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
            ds.task("own checksum").read(mine).submit(ctx ->
            {
                final CRC32C crc = new CRC32C();
                crc.update(ctx.buffer(mine).slice(0, BYTES));
                own.put(transport.slot(), crc.getValue());
            });
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
