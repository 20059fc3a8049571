package dev.spillway.ranks;

import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.SpillwayConfig;
import dev.spillway.checkpoint.CheckpointCost;
import dev.spillway.checkpoint.CheckpointPolicy;
import dev.spillway.checkpoint.Cut;
import dev.spillway.io.StoreKind;
import dev.spillway.rdma.InProcessFabric;
import dev.spillway.rdma.Transport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Global checkpoints of three ranks in one JVM running a ring stencil: every rank cuts at the same global indices,
 * every cut is consistent ({@link CutChecker}), and rank 0's record names the newest global commit.
 */
class GlobalCheckpointsTest
{
    private static final int RANKS = 3;
    private static final int TILES = 9;
    private static final int SWEEPS = 8;
    private static final int BYTES = 4 << 10;
    /** Fills, sweeps of updates, digests. */
    private static final int TASKS = TILES * (SWEEPS + 2);
    private static final int EVERY = 8;
    private static final Duration LIMIT = Duration.ofSeconds(300);

    @TempDir
    Path dir;

    @Test
    void cutsEveryNTasksAreAtTheSameIndicesOnEveryRankAndConsistent() throws Exception
    {
        final String plain = run(null, rank -> null, (ds, ring, recording) -> ring.submitAll(), true).get(0).digest;
        final Path root = Files.createDirectories(dir.resolve("every"));
        final List<RankRun> ranks = run(root, rank -> GlobalCheckpoints.everyTasks(EVERY, root, Cut.LOCAL, 0),
            (ds, ring, recording) -> ring.submitAll(), true);
        final List<Long> expected = new ArrayList<>();
        for (long g = EVERY; g <= TASKS; g += EVERY)
        {
            expected.add(g);
        }
        assertTrue(expected.size() >= 5, "too few cuts to tell anything: " + expected);
        assertEquals(plain, ranks.get(0).digest, "the cuts changed the result");
        assertSameConsistentCuts(ranks, expected);
        assertFalse(Files.exists(root.resolve(GlobalCheckpoints.RECORD)), "the completed job left its record");

        // The negative control on this run: moving rank 1's frontier of a middle cut back onto its last transfer
        // half before the cut puts that half after the cut and its partner still before: the checker must say so.
        final long g = expected.get(expected.size() / 2);
        final Cut cut = ranks.get(1).cuts.stream().filter(c -> c.globalIndex() == g).findFirst().orElseThrow();
        final CutRecording.Half last = ranks.get(1).recording.halves().stream().filter(h -> h.seq() < cut.frontier())
            .reduce((a, b) -> b).orElseThrow();
        final List<List<Cut>> shifted = new ArrayList<>(committed(ranks));
        shifted.set(1, ranks.get(1).cuts.stream().map(c -> c != cut ? c :
            new Cut(c.generation(), last.seq(), g, c.incarnation(), c.programHash())).toList());
        final List<String> v = CutChecker.violations(recordings(ranks), shifted);
        assertTrue(v.stream().anyMatch(s -> s.startsWith("the global cut at index " + g + " splits the transfer of " +
            last.key())), v.toString());
    }

    /** Each round's cut lies at the ranks' largest admission front: at or behind rank 0's submission front. */
    @Test
    void agreedCutsAreAtTheSameIndicesOnEveryRankAndConsistent() throws Exception
    {
        final List<Round> rounds = List.of(new Round(10, 1), new Round(22, 2), new Round(34, 3), new Round(46, 1),
            new Round(58, 2), new Round(70, 3));
        assertAgreedCuts(runAgreed(rounds), rounds);
    }

    /**
     * Rank 0 holds admission while it submits 20 tasks past where ranks 1 and 2 wait, so every admission front lies
     * at or behind the index they wait at: the cut lies there, behind rank 0's submission front, and rank 0 takes it
     * behind the tasks it submitted since.
     */
    @Test
    void anAgreedCutLiesAtTheAdmissionFrontsBehindTheSubmissionFront() throws Exception
    {
        final Round round = new Round(40, 20, Round.Rank0.PAUSED);
        final List<RankRun> ranks = runAgreed(List.of(round));
        assertAgreedCuts(ranks, List.of(round));
        assertTrue(ranks.get(0).cuts.get(0).globalIndex() <= round.at(), "the cut at " +
            ranks.get(0).cuts.get(0).globalIndex() + " lies past every admission front (at most " + round.at() + ")");
    }

    /**
     * Rank 0 has submitted and run every task, the last five its own, and ranks 1 and 2 all but those five when they
     * agree on a cut: rank 0's admission front is the end, and all three cut after the last task, ranks 1 and 2 as
     * their submissions reach it. (They used to cut only before a further task, so they never took that cut.)
     */
    @Test
    void anAgreedCutAfterTheLastTaskIsTakenOnEveryRank() throws Exception
    {
        final Path root = Files.createDirectories(dir.resolve("after-last"));
        final OnDemand due = new OnDemand();
        final CountDownLatch decided = new CountDownLatch(1);
        final int own = 5;
        final List<RankRun> ranks = run(root, rank -> GlobalCheckpoints.agreed(rank == DistributedSpillway.ROOT ?
            due : new OnDemand(), root, Cut.LOCAL, 0), (ds, ring, recording) ->
        {
            for (int k = 0; k < TASKS; k++)
            {
                ring.submit(k);
            }
            final Data mine = ds.data("rank 0's own", BYTES, DistributedSpillway.ROOT);
            if (ds.rank() != DistributedSpillway.ROOT)
            {
                assertTrue(decided.await(LIMIT.toSeconds(), TimeUnit.SECONDS), "rank 0 did not cut in 300 s");
            }
            for (int i = 0; i < own; i++)
            {
                final int value = i;
                ds.task("own " + i).write(mine).submit(ctx -> ctx.buffer(mine).putInt(0, value));
            }
            if (ds.rank() == DistributedSpillway.ROOT)
            {
                ds.local().awaitAll();
                due.arm();
                assertTrue(recording.awaitCuts(1, LIMIT), "rank 0 did not cut in 300 s");
                decided.countDown();
            }
            else
            {
                // Submissions are not held while the ranks agree: the decision may come after the last one.
                assertTrue(recording.awaitCuts(1, LIMIT), "rank " + ds.rank() + " did not cut in 300 s");
            }
        }, true);
        assertSameConsistentCuts(ranks, List.of((long)TASKS + own));
    }

    /** One agreed cut per round on every rank, each past the one before and at or behind rank 0's submissions. */
    private static void assertAgreedCuts(final List<RankRun> ranks, final List<Round> rounds)
    {
        final List<Long> cuts = ranks.get(0).cuts.stream().map(Cut::globalIndex).toList();
        assertEquals(rounds.size(), cuts.size(), "cuts " + cuts + " for " + rounds);
        for (int i = 0; i < cuts.size(); i++)
        {
            assertTrue(cuts.get(i) <= rounds.get(i).cut() && (i == 0 || cuts.get(i) > cuts.get(i - 1)),
                "cuts " + cuts + " for " + rounds);
        }
        assertSameConsistentCuts(ranks, cuts);
    }

    @Test
    void ranksAgreeOnTheRecordedCutToRestore() throws Exception
    {
        final Path root = Files.createDirectories(dir.resolve("restore"));
        assertEquals(Collections.nCopies(RANKS, Cut.LOCAL), agreeOnRestore(root), "a fresh root");
        // A job stopped before it completed keeps its record.
        final List<RankRun> ranks = run(root, rank -> GlobalCheckpoints.everyTasks(EVERY, root, Cut.LOCAL, 0),
            (ds, ring, recording) -> ring.submitAll(), false);
        final List<Long> cuts = ranks.get(0).cuts.stream().map(Cut::globalIndex).toList();
        final List<Long> agreed = agreeOnRestore(root);
        assertEquals(Collections.nCopies(RANKS, agreed.get(0)), agreed);
        for (int r = 1; r < RANKS; r++)
        {
            assertFalse(Files.exists(GlobalCheckpoints.rankRecord(root, r)), "rank " + r + " recorded without copies");
        }
        // Rank 0 began its last cut once the one before was globally committed; the last one may have been too.
        assertTrue(cuts.size() >= 5 && cuts.indexOf(agreed.get(0)) >= cuts.size() - 2,
            "agreed on " + agreed.get(0) + ", rank 0's cuts " + cuts);
    }

    /**
     * With copies at buddies every other rank records the global commits it learns, so that a job whose rank 0 lost
     * its record with its node resumes from the newest cut a surviving rank recorded; a completed job leaves no
     * record at all. Without copies only rank 0 records ({@link #ranksAgreeOnTheRecordedCutToRestore}).
     */
    @Test
    void withCopiesEveryRankRecordsTheGlobalCommitsSoRankZerosRecordMayBeLost() throws Exception
    {
        final Path root = Files.createDirectories(dir.resolve("learned"));
        run(root, rank -> withCopies(root), (ds, ring, recording) -> ring.submitAll(), false);
        final long rootRecord = new GlobalCommitRecord(root.resolve(GlobalCheckpoints.RECORD)).read(RANKS);
        long newest = Cut.LOCAL;
        for (int r = 1; r < RANKS; r++)
        {
            final long learned = new GlobalCommitRecord(GlobalCheckpoints.rankRecord(root, r)).read(RANKS);
            assertTrue(learned != Cut.LOCAL && learned <= rootRecord, "rank " + r + " recorded " + learned +
                ", rank 0 " + rootRecord);
            newest = Math.max(newest, learned);
        }
        assertEquals(Collections.nCopies(RANKS, rootRecord), agreeOnRestore(root, true), "rank 0's record is the " +
            "newest");
        Files.delete(root.resolve(GlobalCheckpoints.RECORD));
        assertEquals(Collections.nCopies(RANKS, newest), agreeOnRestore(root, true), "without rank 0's record");
        assertEquals(Collections.nCopies(RANKS, Cut.LOCAL), agreeOnRestore(root), "a run without copies reads only " +
            "rank 0's record");
        for (int r = 1; r < RANKS; r++)
        {
            assertFalse(Files.exists(GlobalCheckpoints.rankRecord(root, r)), "a run without copies leaves rank " + r +
                "'s record");
        }

        final Path completed = Files.createDirectories(dir.resolve("learned-completed"));
        run(completed, rank -> withCopies(completed), (ds, ring, recording) -> ring.submitAll(), true);
        try (var left = Files.list(completed))
        {
            assertEquals(List.of(), left.map(f -> f.getFileName().toString())
                .filter(name -> name.startsWith(GlobalCheckpoints.RECORD)).toList(), "records of a completed job");
        }
        assertEquals(Collections.nCopies(RANKS, Cut.LOCAL), agreeOnRestore(completed, true), "a completed job");
    }

    /** @return a rank's policy whose generations count once a copy, made at once, is durable. */
    private static GlobalCheckpoints withCopies(final Path root)
    {
        final GlobalCheckpoints policy = GlobalCheckpoints.everyTasks(EVERY, root, Cut.LOCAL, 0);
        policy.recordCommitsOnEveryRank();
        policy.copyCommitsTo(new CommitCopy()
        {
            @Override
            public void copy(final Cut cut, final Runnable durable, final java.util.function.Consumer<String> failed)
            {
                java.util.concurrent.CompletableFuture.runAsync(durable);
            }

            @Override
            public String state()
            {
                return "copies made at once";
            }

            @Override
            public void close()
            {
            }
        });
        return policy;
    }

    @Test
    void aCorruptRecordIsRefusedNamingTheFile() throws Exception
    {
        final Path file = dir.resolve(GlobalCheckpoints.RECORD);
        new GlobalCommitRecord(file).write(40, 1, 0);
        final String text = Files.readString(file);
        Files.writeString(file, text.replace(" 40 ", " 48 "));
        try (InProcessFabric fabric = new InProcessFabric(1, Duration.ofSeconds(20)))
        {
            final UncheckedIOException e = assertThrows(UncheckedIOException.class,
                () -> GlobalCheckpoints.agreeOnRestore(fabric.transport(0), dir));
            assertTrue(e.getMessage().contains("the global commit record " + file + " is corrupt"), e.getMessage());
            new GlobalCommitRecord(file).write(40, RANKS, 0);
            final UncheckedIOException other = assertThrows(UncheckedIOException.class,
                () -> GlobalCheckpoints.agreeOnRestore(fabric.transport(0), dir));
            assertTrue(other.getMessage().contains(file + " belongs to a job of 3 ranks"), other.getMessage());
        }
    }

    /**
     * A rank's last generation may commit while its runtime closes, after its global checkpoints stopped: that commit
     * is neither recorded nor a failure. (Rank 0 handed it to its executor, which, shut down, threw on the IO thread.)
     */
    @Test
    void aCutCommittedAfterCloseIsIgnored() throws Exception
    {
        final Path root = Files.createDirectories(dir.resolve("late"));
        final GlobalCheckpoints policy = GlobalCheckpoints.everyTasks(EVERY, root, Cut.LOCAL, 0);
        try (InProcessFabric fabric = new InProcessFabric(1, Duration.ofSeconds(20)))
        {
            final DistributedSpillway ds = new DistributedSpillway(fabric.transport(0),
                config(0).checkpoints(new CutLog(cut -> { }), policy));
            ds.close();
            policy.cutCommitted(new Cut(0, 1, EVERY, 0, 0));
            assertNull(ds.restartNeeded());
            assertFalse(Files.exists(root.resolve(GlobalCheckpoints.RECORD)), "a commit after close was recorded");
        }
    }

    /**
     * Closing a runtime whose job completed may interrupt the commit of its last cut (seen under load: "failed to
     * commit: null", a ClosedByInterruptException): nothing needs that generation any more, so its abandonment is
     * no reason to restart, and a successful job does not fail at close.
     */
    @Test
    void aCutAbandonedAfterTheJobCompletedIsNoFailure() throws Exception
    {
        final Path root = Files.createDirectories(dir.resolve("abandoned"));
        final GlobalCheckpoints policy = GlobalCheckpoints.everyTasks(EVERY, root, Cut.LOCAL, 0);
        try (InProcessFabric fabric = new InProcessFabric(1, Duration.ofSeconds(20)))
        {
            final DistributedSpillway ds = new DistributedSpillway(fabric.transport(0),
                config(0).checkpoints(new CutLog(cut -> { }), policy));
            ds.awaitAll();
            ds.close();
            policy.cutAbandoned(new Cut(0, 1, EVERY, 0, 0), "interrupted while the runtime closed");
            assertNull(ds.restartNeeded());
        }
    }

    /**
     * A rank that stops for a restart while it waits at the job's last barrier (a replica's comparison of its last cut
     * failed, after its tasks ended) leaves the barrier at once: its peers may wait for that cut's global commit, never
     * for the barrier, so it would otherwise wait for the transport's timeout.
     */
    @Test
    void aRankStoppedForARestartLeavesTheLastBarrier() throws Exception
    {
        try (InProcessFabric fabric = new InProcessFabric(2, LIMIT.multipliedBy(2)))
        {
            final List<DistributedSpillway> ranks = new ArrayList<>();
            for (int r = 0; r < 2; r++)
            {
                final Path root = Files.createDirectories(dir.resolve("barrier-" + r));
                ranks.add(new DistributedSpillway(fabric.transport(r), config(r).checkpoints(new CutLog(cut -> { }),
                    GlobalCheckpoints.everyTasks(EVERY, root, Cut.LOCAL, 0))));
            }
            final ExecutorService pool = Executors.newSingleThreadExecutor();
            try
            {
                final Future<?> waits = pool.submit(() -> ranks.get(1).awaitAll());
                ranks.get(1).restartNeeded("its last cut's comparison failed", -1);
                final Throwable thrown;
                try
                {
                    waits.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
                    throw new AssertionError("rank 1's awaitAll passed the barrier that rank 0 never reached");
                }
                catch (final java.util.concurrent.TimeoutException e)
                {
                    throw new AssertionError("waited " + LIMIT + " for rank 1's awaitAll to end once it stopped for " +
                        "a restart", e);
                }
                catch (final java.util.concurrent.ExecutionException e)
                {
                    thrown = e.getCause();
                }
                assertTrue(thrown instanceof RestartNeededException && thrown.getMessage().contains("its last cut's " +
                    "comparison failed"), String.valueOf(thrown));
            }
            finally
            {
                pool.shutdownNow();
                fabric.kill(1, "rank 1 stopped for a restart");
                for (final DistributedSpillway ds : ranks)
                {
                    ds.close();
                }
            }
        }
    }

    /**
     * With copies (buddy checkpoints), a rank begins a cut while the copy of the one before is in flight, but not a
     * third while the first of the two is still not globally committed; its copy's answer lets it go on.
     */
    @Test
    void withCopiesACutMayBeginWhileTheCopyOfTheOneBeforeIsInFlight() throws Exception
    {
        final Path root = Files.createDirectories(dir.resolve("copies"));
        final GlobalCheckpoints policy = GlobalCheckpoints.everyTasks(EVERY, root, Cut.LOCAL, 0);
        final Map<Long, Runnable> durable = new ConcurrentSkipListMap<>();
        policy.copyCommitsTo(new CommitCopy()
        {
            @Override
            public void copy(final Cut cut, final Runnable done, final java.util.function.Consumer<String> failed)
            {
                durable.put(cut.globalIndex(), done);
            }

            @Override
            public String state()
            {
                return "copies in flight: " + durable.keySet();
            }

            @Override
            public void close()
            {
            }
        });
        try (InProcessFabric fabric = new InProcessFabric(1, Duration.ofSeconds(20));
             DistributedSpillway ds = new DistributedSpillway(fabric.transport(0),
                 config(0).checkpoints(new CutLog(cut -> { }), policy)))
        {
            policy.cutCommitted(new Cut(0, 1, EVERY, 0, 0));
            assertTrue(policy.mayBegin(2 * EVERY), "the copy of the cut at " + EVERY + " held the next cut");
            policy.cutCommitted(new Cut(1, 2, 2 * EVERY, 0, 0));
            assertFalse(policy.mayBegin(3 * EVERY), "a third cut began before the first was globally committed");
            final String wait = policy.beginWait(3 * EVERY);
            assertTrue(wait.contains("the cut at index " + EVERY + ", which this rank committed") &&
                wait.contains("copies in flight: [" + EVERY + ", " + 2 * EVERY + "]"), wait);

            durable.get((long)EVERY).run();
            final long deadline = System.nanoTime() + LIMIT.toNanos();
            while (!policy.mayBegin(3 * EVERY))
            {
                assertTrue(System.nanoTime() - deadline < 0, "waited " + LIMIT + " for the global commit of the " +
                    "cut at " + EVERY + " after its copy was durable; " + policy.beginWait(3 * EVERY));
                Thread.sleep(1);
            }
            assertEquals(EVERY, policy.globallyCommitted());
            assertNull(ds.restartNeeded());
        }
    }

    /** A policy given to a second runtime is refused before that runtime opens anything (its store, its threads). */
    @Test
    void aPolicyServesOneRuntime() throws Exception
    {
        final Path root = Files.createDirectories(dir.resolve("twice"));
        final GlobalCheckpoints policy = GlobalCheckpoints.everyTasks(EVERY, root, Cut.LOCAL, 0);
        try (InProcessFabric fabric = new InProcessFabric(1, Duration.ofSeconds(20));
             DistributedSpillway first = new DistributedSpillway(fabric.transport(0),
                 config(0).checkpoints(new CutLog(cut -> { }), policy)))
        {
            final Path second = dir.resolve("second");
            final IllegalStateException e = assertThrows(IllegalStateException.class, () -> new DistributedSpillway(
                fabric.transport(0), Spillway.builder().storeDir(second).checkpoints(new CutLog(cut -> { }), policy)));
            assertTrue(e.getMessage().contains("one per rank"), e.getMessage());
            assertFalse(Files.exists(second), "the refused runtime opened a store in " + second);
            assertNull(first.restartNeeded());
        }
    }

    /**
     * Every rank committed cuts at {@code expected}, in order; rank 0's record named the previous cut whenever it
     * began one (it begins a cut only once the one before is globally committed, and no later one can be); and the
     * cut checker finds every cut consistent.
     */
    private static void assertSameConsistentCuts(final List<RankRun> ranks, final List<Long> expected)
    {
        for (final RankRun r : ranks)
        {
            assertEquals(expected, r.cuts.stream().map(Cut::globalIndex).toList(),
                "rank " + r.recording.rank + " committed cuts at other global indices");
        }
        final Map<Long, String> records = new TreeMap<>();
        for (int i = 0; i < expected.size(); i++)
        {
            records.put(expected.get(i), String.valueOf(i == 0 ? Cut.LOCAL : expected.get(i - 1)));
        }
        assertEquals(records, ranks.get(0).recordAtBegin, "rank 0's record when it began each cut");
        assertTrue(ranks.stream().mapToLong(r -> r.recording.halves().size()).sum() > TASKS,
            "too few transfers to tell anything");
        assertEquals(List.of(), CutChecker.violations(recordings(ranks), committed(ranks)));
    }

    private static List<CutRecording> recordings(final List<RankRun> ranks)
    {
        return ranks.stream().map(r -> r.recording).toList();
    }

    private static List<List<Cut>> committed(final List<RankRun> ranks)
    {
        return ranks.stream().map(r -> r.cuts).toList();
    }

    /**
     * Runs the ring with agreed cuts, one per round: rank 0 asks for it {@code ahead} tasks past where ranks 1 and 2
     * wait, so it is furthest, and they go on once rank 0 requested the cut, which is after the ranks agreed on it.
     */
    private List<RankRun> runAgreed(final List<Round> rounds) throws Exception
    {
        final Path root = Files.createDirectories(dir.resolve("agreed"));
        final OnDemand due = new OnDemand();
        final CountDownLatch[] decided = new CountDownLatch[rounds.size()];
        Arrays.setAll(decided, i -> new CountDownLatch(1));
        return run(root, rank -> GlobalCheckpoints.agreed(rank == DistributedSpillway.ROOT ? due : new OnDemand(), root,
            Cut.LOCAL, 0), (ds, ring, recording) ->
        {
            int round = 0;
            for (int k = 0; k <= TASKS; k++)
            {
                final Round r = round < rounds.size() ? rounds.get(round) : null;
                if (r != null && ds.rank() == DistributedSpillway.ROOT && k == r.at() &&
                    r.rank0() == Round.Rank0.PAUSED)
                {
                    ds.local().pause();
                }
                if (r != null && ds.rank() == DistributedSpillway.ROOT && k == r.cut())
                {
                    due.arm();
                    assertTrue(recording.awaitCuts(round + 1, LIMIT), "rank 0 did not cut at " + k + " in 300 s");
                    if (r.rank0() == Round.Rank0.PAUSED)
                    {
                        ds.local().resume();
                    }
                    decided[round++].countDown();
                }
                else if (r != null && ds.rank() != DistributedSpillway.ROOT && k == r.at)
                {
                    assertTrue(decided[round++].await(LIMIT.toSeconds(), TimeUnit.SECONDS),
                        "rank " + ds.rank() + ": rank 0 did not cut at " + r.cut() + " in 300 s");
                }
                if (k < TASKS)
                {
                    ring.submit(k);
                }
            }
        }, true);
    }

    /** @return what every rank of a fresh job agrees to restore from {@code root}, only rank 0's record counting. */
    private static List<Long> agreeOnRestore(final Path root) throws Exception
    {
        return agreeOnRestore(root, false);
    }

    /** @return as above; with {@code everyRankRecords} every rank's record counts. */
    private static List<Long> agreeOnRestore(final Path root, final boolean everyRankRecords) throws Exception
    {
        try (InProcessFabric fabric = new InProcessFabric(RANKS, Duration.ofSeconds(120)))
        {
            final ExecutorService pool = Executors.newFixedThreadPool(RANKS);
            try
            {
                final List<Future<Long>> futures = new ArrayList<>();
                for (int r = 0; r < RANKS; r++)
                {
                    final Transport t = fabric.transport(r);
                    futures.add(pool.submit(() -> GlobalCheckpoints.agreeOnRestore(t, root, everyRankRecords)));
                }
                final List<Long> agreed = new ArrayList<>();
                for (final Future<Long> f : futures)
                {
                    agreed.add(f.get(LIMIT.toSeconds(), TimeUnit.SECONDS));
                }
                return agreed;
            }
            finally
            {
                pool.shutdownNow();
            }
        }
    }

    /**
     * Runs the ring on every rank.
     *
     * @param root     the job's checkpoint directory, or null without checkpoints.
     * @param complete whether the ranks end with {@code awaitAll()}, so the job completes, or only wait for their
     *                 local tasks, so it stops with its record kept.
     */
    private List<RankRun> run(final Path root, final IntFunction<GlobalCheckpoints> policies, final Driver driver,
        final boolean complete) throws Exception
    {
        // A transfer waits for its peer at most this long; a rank parked behind a cut waits for global commits.
        try (InProcessFabric fabric = new InProcessFabric(RANKS, Duration.ofSeconds(120)))
        {
            final ExecutorService pool = Executors.newFixedThreadPool(RANKS);
            try
            {
                final List<Future<RankRun>> futures = new ArrayList<>();
                for (int r = 0; r < RANKS; r++)
                {
                    final int rank = r;
                    futures.add(pool.submit(() -> runRank(fabric.transport(rank), root, policies.apply(rank), driver,
                        complete)));
                }
                final List<RankRun> ranks = new ArrayList<>();
                for (final Future<RankRun> f : futures)
                {
                    ranks.add(f.get(2 * LIMIT.toSeconds(), TimeUnit.SECONDS));
                }
                return ranks;
            }
            finally
            {
                pool.shutdownNow();
            }
        }
    }

    private RankRun runRank(final Transport transport, final Path root, final GlobalCheckpoints policy,
        final Driver driver, final boolean complete) throws Exception
    {
        final int rank = transport.rank();
        final Map<Long, String> recordAtBegin = new ConcurrentSkipListMap<>();
        final CutLog store = new CutLog(cut ->
        {
            if (rank == DistributedSpillway.ROOT)
            {
                recordAtBegin.put(cut.globalIndex(), record(root));
            }
        });
        final SpillwayConfig config = config(rank);
        if (policy != null)
        {
            config.checkpoints(store, policy);
        }
        final CutRecording recording = new CutRecording(rank);
        final DistributedSpillway ds = new DistributedSpillway(transport, config, RankProtocol.NONE, recording);
        final RankRun run;
        try (ds)
        {
            final Ring ring = new Ring(ds);
            driver.submit(ds, ring, recording);
            if (complete)
            {
                ds.awaitAll();
            }
            else
            {
                ds.local().awaitAll();
            }
            // Every rank's last cut commits before any rank closes: it begins only once the one before is globally
            // committed, which takes rank 0's checkpoint messages.
            final TreeMap<Long, Long> requested = recording.frontiers();
            assertTrue(requested.isEmpty() || store.awaitCommitted(requested.lastKey(), LIMIT),
                () -> "rank " + rank + ": its cut at global index " + requested.lastKey() + " was not committed in " +
                    "300 s");
            ds.barrier();
            run = new RankRun(recording, store.committed(), ring.digest(), new TreeMap<>(recordAtBegin));
        }
        assertNull(ds.restartNeeded(), () -> "rank " + rank + " stopped for a restart as it closed");
        return run;
    }

    private SpillwayConfig config(final int rank)
    {
        return Spillway.builder().storeDir(dir.resolve("rank" + rank)).store(StoreKind.DIRECT).dramBudget(64L * BYTES)
            .workers(2).storeSizing(256, BYTES);
    }

    /** @return the index rank 0's record names now, or why it cannot be read. */
    private static String record(final Path root)
    {
        try
        {
            return String.valueOf(new GlobalCommitRecord(root.resolve(GlobalCheckpoints.RECORD)).read(RANKS));
        }
        catch (final IOException e)
        {
            return e.toString();
        }
    }

    /** Submits a rank's tasks. */
    private interface Driver
    {
        void submit(DistributedSpillway ds, Ring ring, CutRecording recording) throws InterruptedException;
    }

    /**
     * What one rank ran.
     *
     * @param digest        the tiles' checksums (on rank 0).
     * @param recordAtBegin on rank 0: for each cut, what its record named as the cut began.
     */
    private record RankRun(CutRecording recording, List<Cut> cuts, String digest, Map<Long, String> recordAtBegin)
    {
    }

    /** One agreed cut: ranks 1 and 2 wait before task {@code at}, rank 0 asks for the cut {@code ahead} tasks on. */
    /**
     * A round of the agreed tests: ranks 1 and 2 wait after {@code at} tasks, rank 0 asks for a cut after
     * {@code at + ahead}.
     */
    private record Round(int at, int ahead, Rank0 rank0)
    {
        /** What rank 0 does besides. */
        enum Rank0
        {
            /** Nothing. */
            SUBMITS,
            /** Holds admission from {@code at} on until its cut is requested. */
            PAUSED
        }

        Round(final int at, final int ahead)
        {
            this(at, ahead, Rank0.SUBMITS);
        }

        long cut()
        {
            return at + ahead;
        }
    }

    /** The timing policy of rank 0 in the agreed tests: due once each time the test arms it. */
    private static final class OnDemand implements CheckpointPolicy
    {
        private final AtomicBoolean armed = new AtomicBoolean();

        void arm()
        {
            armed.set(true);
        }

        @Override
        public boolean due(final long tasksSinceCut, final long nanosSinceCut)
        {
            return armed.getAndSet(false);
        }

        @Override
        public void committed(final CheckpointCost cost)
        {
        }

        @Override
        public String describe()
        {
            return "on demand";
        }
    }

    /**
     * A ring stencil: tile i lives on rank i mod 3, and each update reads both neighbours, so almost every update
     * moves two tiles; the digests run on rank 0 and move the tiles of ranks 1 and 2 there.
     */
    private static final class Ring
    {
        private final Data[] x = new Data[TILES];
        private final DistributedSpillway ds;
        private final long[] crcs = new long[TILES];

        Ring(final DistributedSpillway ds)
        {
            this.ds = ds;
            for (int i = 0; i < TILES; i++)
            {
                x[i] = ds.data("x" + i, BYTES, i % ds.ranks());
            }
        }

        void submitAll()
        {
            for (int k = 0; k < TASKS; k++)
            {
                submit(k);
            }
        }

        /** Submits the task at global index {@code k}. */
        void submit(final int k)
        {
            final int i = k % TILES;
            final Data me = x[i];
            if (k < TILES)
            {
                ds.task("fill " + i).write(me).submit(ctx ->
                {
                    final ByteBuffer b = ctx.buffer(me);
                    for (int e = 0; e < BYTES / 8; e++)
                    {
                        b.putDouble(e * 8, i + e * 1e-3);
                    }
                });
            }
            else if (k < TASKS - TILES)
            {
                final Data left = x[(i + TILES - 1) % TILES];
                final Data right = x[(i + 1) % TILES];
                ds.task("update " + k).readWrite(me).read(left, right).submit(ctx ->
                {
                    final ByteBuffer m = ctx.buffer(me);
                    final ByteBuffer l = ctx.buffer(left);
                    final ByteBuffer r = ctx.buffer(right);
                    for (int e = 0; e < BYTES; e += 8)
                    {
                        m.putDouble(e, 0.5 * m.getDouble(e) + 0.25 * (l.getDouble(e) - r.getDouble(e)));
                    }
                });
            }
            else
            {
                ds.task("digest " + i).read(me).submit(ctx ->
                {
                    final CRC32C crc = new CRC32C();
                    crc.update(ctx.buffer(me));
                    crcs[i] = crc.getValue();
                });
            }
        }

        String digest()
        {
            return Arrays.toString(crcs);
        }
    }
}
