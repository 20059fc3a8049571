package dev.spillway.resilience.p2f;

import dev.spillway.Acquired;
import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.SpillwayConfig;
import dev.spillway.checkpoint.Cut;
import dev.spillway.io.StoreKind;
import dev.spillway.ranks.DistributedSpillway;
import dev.spillway.ranks.GlobalCheckpoints;
import dev.spillway.ranks.RankProtocol;
import dev.spillway.rdma.InProcessFabric;
import dev.spillway.rdma.Transport;
import dev.spillway.resilience.Checkpoints;
import dev.spillway.resilience.RingSweeps;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Past-to-future logging in the engine, failure-free, on four ranks in one JVM (two clusters: ranks 0–1 and 2–3)
 * running a ring stencil over tiles dealt in contiguous blocks, with aligned cuts every {@value #EVERY} submissions.
 * The expectations come from the transfers the runtime reports ({@link DistributedSpillway.Recorder}), not from the
 * protocol: with aligned cuts a transfer is past to future exactly when it goes from a lower cluster to a higher
 * one, and every generation's protocol section must hold exactly the sends and receptions before its cut.
 */
class P2fEngineTest
{
    private static final int RANKS = 4;
    private static final int CLUSTERS = 2;
    private static final int TILES = 8;
    private static final int SWEEPS = 6;
    private static final int BYTES = 4 << 10;
    private static final int EVERY = 10;
    private static final Duration LIMIT = Duration.ofSeconds(300);
    private static final EpochPlan PLAN = EpochPlan.aligned(RANKS, CLUSTERS, EVERY);

    @TempDir
    Path dir;

    @Test
    void transfersUpwardAcrossClustersAreLoggedAndEveryGenerationKeepsTheStateAtItsCut() throws Exception
    {
        final long plain = run(dir.resolve("plain"), false, SWEEPS, true).get(0).digest;
        final List<RankRun> ranks = run(dir.resolve("p2f"), true, SWEEPS, true);
        assertEquals(plain, ranks.get(0).digest, "the protocol changed the result");

        long upward = 0;
        long all = 0;
        for (final RankRun r : ranks)
        {
            final long sends = r.sends.size();
            final long up = r.sends.stream().filter(s -> PLAN.cluster(s.source) < PLAN.cluster(s.target)).count();
            assertEquals(sends, r.figures.sent(), "rank " + r.rank + ": transfers stamped");
            assertEquals(up, r.figures.logged(), "rank " + r.rank + ": transfers logged");
            assertEquals(sends - up, r.figures.dependencies(), "rank " + r.rank + ": transfers recorded as dependencies");
            upward += up;
            all += sends;
        }
        assertTrue(upward > 0 && upward < all, "the ring must send both up and down across clusters: " + upward +
            " of " + all);
        assertEquals(all, ranks.stream().mapToLong(r -> r.figures.received()).sum(), "transfers received and acked");
        assertSectionsHoldTheStateAtTheirCuts(ranks, Cut.LOCAL);
        final Map<String, Long> expected = versions();
        for (final RankRun r : ranks)
        {
            final long upwardHere = r.sends.stream().filter(x -> PLAN.cluster(x.source) < PLAN.cluster(x.target))
                .count();
            assertEquals(upwardHere, r.logs.size(), "rank " + r.rank + ": payloads captured");
            final int[] checked = {0};
            r.logs.forEach((logTag, crc) ->
            {
                final LoggedTransfer entry = r.sections.values().stream().map(SectionCodec::decode)
                    .flatMap(s -> IntStream.range(0, RANKS).boxed().flatMap(t -> s.logged(t).stream()))
                    .filter(e -> logTag.equals(e.logTag())).findFirst().orElse(null);
                if (entry != null)
                {
                    checked[0]++;
                    assertEquals(expected.get(entry.tag() + " v" + entry.version()), crc,
                        "rank " + r.rank + ": the payload in " + logTag + " is not " + entry.tag() + " v" +
                            entry.version());
                }
            });
            assertTrue(upwardHere == 0 || checked[0] > upwardHere / 2, "rank " + r.rank + ": only " + checked[0] + " of " + upwardHere +
                " captured payloads are named by a generation's log");
        }
    }

    /** @return the checksum of every version of every tile, computed by running the program sequentially. */
    private static Map<String, Long> versions()
    {
        final long[][] t = new long[TILES][BYTES / 8];
        final Map<String, Long> crc = new HashMap<>();
        for (int i = 0; i < TILES; i++)
        {
            for (int k = 0; k < t[i].length; k++)
            {
                t[i][k] = i * 1_000_003L + 8L * k;
            }
            crc.put("tile " + i + " v1", crc(t[i]));
        }
        for (int s = 0; s < SWEEPS; s++)
        {
            for (int i = 0; i < TILES; i++)
            {
                final long[] l = t[(i + TILES - 1) % TILES];
                final long[] r = t[(i + 1) % TILES];
                for (int k = 0; k < t[i].length; k++)
                {
                    t[i][k] = t[i][k] * 31 + (l[k] ^ Long.rotateLeft(r[k], 7));
                }
                crc.put("tile " + i + " v" + (s + 2), crc(t[i]));
            }
        }
        return crc;
    }

    private static long crc(final long[] words)
    {
        final ByteBuffer b = ByteBuffer.allocate(words.length * 8).order(ByteOrder.nativeOrder());
        for (final long w : words)
        {
            b.putLong(w);
        }
        return crc(b.flip());
    }

    private static long crc(final ByteBuffer b)
    {
        final CRC32C c = new CRC32C();
        c.update(b.duplicate());
        return c.getValue();
    }

    @Test
    void aRelaunchedJobResumesTheProtocolAtTheRestoredCut() throws Exception
    {
        final long plain = run(dir.resolve("plain"), false, SWEEPS, true).get(0).digest;
        final Path root = dir.resolve("p2f");
        final int half = SWEEPS / 2;
        run(root, true, half, false);
        final List<RankRun> resumed = run(root, true, SWEEPS, true);
        final long restored = resumed.get(0).restored;
        assertTrue(restored >= EVERY, "the first run committed no global cut to resume from");
        assertEquals(plain, resumed.get(0).digest, "the resumed run's result");
        for (final RankRun r : resumed)
        {
            assertEquals(restored, r.restored, "rank " + r.rank + " resumed elsewhere");
            assertTrue(r.sends.stream().allMatch(s -> s.globalIndex >= restored), "rank " + r.rank + " sent again " +
                "a transfer before the restored cut");
            assertEquals(r.sends.size(), r.figures.sent(), "rank " + r.rank + ": transfers stamped after the restore");
        }
        // Each receive checks the ssn its notice carries, so a protocol that resumed its channels anywhere but at
        // the restored cut would have failed the run.
        assertSectionsHoldTheStateAtTheirCuts(resumed, restored);
    }

    /**
     * Rank 3 (cluster 1) is killed while it is blocked in its update of tile 7 in sweep 4, once the cut at 40 is
     * globally committed and rank 2 has taken tile 3 of sweep 4 from rank 1 (so rank 1 must send it again). Rank 2,
     * in the same cluster, rolls back with it: both are started again as new incarnations from the global cut. Ranks 0
     * and 1 (cluster 0) never stop: their transfers to the restarted ranks are sent again from their captured
     * payloads, the restarted ranks skip the sends the survivors hold, and the result is the failure-free one.
     */
    @Test
    void aLostRankAndItsClusterRollBackWhileTheLowerClusterKeepsRunning() throws Exception
    {
        final long plain = run(dir.resolve("plain"), false, SWEEPS, true).get(0).digest;
        final Path root = Files.createDirectories(dir.resolve("recovery"));
        final CountDownLatch blocked = new CountDownLatch(1);
        final CountDownLatch tookTile3 = new CountDownLatch(1);
        final CountDownLatch killed = new CountDownLatch(1);
        final CountDownLatch tookTile7 = new CountDownLatch(1);
        final List<String> events = new CopyOnWriteArrayList<>();
        try (InProcessFabric fabric = new InProcessFabric(RANKS, LIMIT))
        {
            final ExecutorService pool = Executors.newFixedThreadPool(RANKS + 1);
            try
            {
                final List<Future<RankRun>> runs = new ArrayList<>();
                for (int r = 0; r < RANKS; r++)
                {
                    final int rank = r;
                    runs.add(pool.submit(() ->
                    {
                        final Transport first = fabric.transport(rank);
                        final long restored = GlobalCheckpoints.agreeOnRestore(first, root);
                        final Consumer<String> hook = name ->
                        {
                            if (rank == 3 && name.equals("update 7 sweep 4") && killed.getCount() > 0)
                            {
                                blocked.countDown();
                                awaitLatch(killed, "the test to kill rank 3");
                            }
                            if (rank == 2 && name.equals("update 4 sweep 4"))
                            {
                                tookTile3.countDown();
                            }
                            if (rank == 0 && name.equals("update 0 sweep 4"))
                            {
                                tookTile7.countDown();
                            }
                        };
                        if (rank < 2)
                        {
                            return runRank(first, root, true, SWEEPS, true, restored, hook);
                        }
                        try
                        {
                            final RankRun once = runRank(first, root, true, SWEEPS, true, restored, hook);
                            fail("rank " + rank + " finished its first incarnation: " + once.digest);
                        }
                        catch (final Throwable stopped)
                        {
                            events.add("rank " + rank + " stopped: " + stopped);
                        }
                        if (rank == 2)
                        {
                            fabric.kill(2, "it rolls back with rank 3's cluster");
                        }
                        else
                        {
                            awaitLatch(killed, "the test to kill rank 3");
                        }
                        final long cut = GlobalCheckpoints.rejoinCut(root, rank, RANKS);
                        events.add("rank " + rank + " restarts from the cut at " + cut);
                        return runRank(fabric.revive(rank), root, true, SWEEPS, true, cut, name -> { });
                    }));
                }
                awaitLatch(blocked, "rank 3 to block in its update of tile 7, sweep 4");
                awaitLatch(tookTile3, "rank 2 to take tile 3 of sweep 4");
                awaitLatch(tookTile7, "rank 0 to take tile 7 of sweep 3");
                final long committed = waitForGlobalCommit(root, 40);
                events.add("killing rank 3 with the cut at " + committed + " globally committed");
                fabric.kill(3, "killed by the test");
                killed.countDown();
                final List<RankRun> ranks = new ArrayList<>();
                for (final Future<RankRun> f : runs)
                {
                    ranks.add(f.get(2 * LIMIT.toSeconds(), TimeUnit.SECONDS));
                }
                assertEquals(plain, ranks.get(0).digest, "the result after the recovery; " + events);
                for (final int r : new int[] {2, 3})
                {
                    assertEquals(committed, ranks.get(r).restored, "rank " + r + " restarted elsewhere; " + events);
                }
                assertTrue(ranks.get(0).restored < 0 && ranks.get(1).restored < 0, "a survivor restarted");
                assertTrue(ranks.get(1).figures.replayed() > 0, "rank 1 sent tile 3 of sweep 4 again: " +
                    ranks.get(1).figures + "; " + events);
                assertTrue(ranks.get(3).figures.suppressed() > 0, "rank 3 sent rank 0 tile 7 of sweep 3 again, " +
                    "which it held: " + ranks.get(3).figures + "; " + events);
            }
            finally
            {
                pool.shutdownNow();
            }
        }
    }

    /** @return the global cut rank 0 recorded, once it is at least {@code index}. */
    private static long waitForGlobalCommit(final Path root, final long index) throws Exception
    {
        final long[] cut = {Cut.LOCAL};
        awaitUntil(() ->
        {
            try
            {
                cut[0] = GlobalCheckpoints.recordedCut(root, RANKS);
            }
            catch (final IOException e)
            {
                return false;
            }
            return cut[0] >= index;
        }, () -> "rank 0 to record the global cut at " + index + " (it recorded " + cut[0] + ")");
        return cut[0];
    }

    private static void awaitLatch(final CountDownLatch latch, final String what)
    {
        try
        {
            if (!latch.await(LIMIT.toSeconds(), TimeUnit.SECONDS))
            {
                fail("timed out after " + LIMIT.toSeconds() + " s waiting for " + what);
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            fail("interrupted waiting for " + what);
        }
    }

    /**
     * Every generation committed after {@code from}: it opens the epoch of its cut; it knows as many sends to and
     * receives from each rank as the program placed before the cut; it logs only transfers to higher clusters,
     * each one of those sends; its dependencies say {@code Er = Es + 2(c_target - c_source)}.
     */
    private static void assertSectionsHoldTheStateAtTheirCuts(final List<RankRun> ranks, final long from)
    {
        final List<Transfer> everySend = ranks.stream().flatMap(r -> r.sends.stream()).toList();
        for (final RankRun r : ranks)
        {
            assertTrue(r.sections.size() >= 2, "rank " + r.rank + " committed too few generations: " +
                r.sections.keySet());
            for (final Map.Entry<Long, byte[]> e : r.sections.entrySet())
            {
                final long g = e.getKey();
                final ProtocolSection<LoggedTransfer> s = SectionCodec.decode(e.getValue());
                final String at = "rank " + r.rank + ", cut at " + g;
                assertEquals(r.rank, s.rank(), at);
                assertEquals(PLAN.initialEpoch(r.rank) + g / EVERY, s.epoch(), at + ": epoch");
                for (int t = 0; t < RANKS; t++)
                {
                    final int peer = t;
                    final List<Transfer> sentBefore = everySend.stream().filter(x -> x.source == r.rank &&
                        x.target == peer && x.globalIndex < g).toList();
                    final List<Transfer> receivedBefore = everySend.stream().filter(x -> x.source == peer &&
                        x.target == r.rank && x.globalIndex < g).toList();
                    assertEquals(r.ssnBase[peer] + sentBefore.size(), s.nextSsn(peer),
                        at + ": sends to rank " + peer);
                    assertEquals(r.receiveBase[peer] + receivedBefore.size() - 1, s.lastAccepted(peer),
                        at + ": receptions from rank " + peer);
                    final boolean up = PLAN.cluster(r.rank) < PLAN.cluster(peer);
                    for (final LoggedTransfer logged : s.logged(peer))
                    {
                        assertTrue(up, at + " logged " + logged + " to rank " + peer + ", not a higher cluster");
                        assertTrue(sentBefore.stream().anyMatch(x -> x.object.equals(logged.tag()) &&
                            x.version == logged.version()) || from >= 0, at + " logged " + logged + ", never sent");
                        assertEquals(BYTES, logged.bytes(), at);
                    }
                    if (up && from < 0)
                    {
                        // The global commit of the cut before this one, which this rank waited for before it began
                        // this one, dropped the logs received before cluster 0's epoch at it.
                        final int gc = g > EVERY ? PLAN.epoch(0, g - EVERY, 0) : Integer.MIN_VALUE;
                        assertEquals(sentBefore.stream().filter(x -> PLAN.epoch(peer, x.globalIndex, 0) >= gc)
                            .count(), s.logged(peer).size(), at + ": logged transfers to rank " + peer);
                    }
                    final int shift = 2 * (PLAN.cluster(peer) - PLAN.cluster(r.rank));
                    s.dependencies(peer).forEach((sendEpoch, receiveEpoch) ->
                    {
                        assertTrue(!up, at + ": a dependency on higher rank " + peer);
                        assertEquals(sendEpoch + shift, (int)receiveEpoch, at + ": dependency on rank " + peer);
                        assertTrue(sendEpoch < s.epoch(), at + ": a dependency of epoch " + sendEpoch);
                    });
                }
            }
        }
    }

    /** Runs the program on every rank; {@code sweeps} of it, awaited as a job or, for a partial run, locally. */
    private List<RankRun> run(final Path root, final boolean p2f, final int sweeps, final boolean complete)
        throws Exception
    {
        Files.createDirectories(root);
        try (InProcessFabric fabric = new InProcessFabric(RANKS, LIMIT))
        {
            final ExecutorService pool = Executors.newFixedThreadPool(RANKS);
            try
            {
                final List<Future<RankRun>> futures = new ArrayList<>();
                for (int r = 0; r < RANKS; r++)
                {
                    final Transport transport = fabric.transport(r);
                    futures.add(pool.submit(() -> runRank(transport, root, p2f, sweeps, complete)));
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

    private RankRun runRank(final Transport transport, final Path root, final boolean p2f, final int sweeps,
        final boolean complete) throws Exception
    {
        return runRank(transport, root, p2f, sweeps, complete, GlobalCheckpoints.agreeOnRestore(transport, root),
            name -> { });
    }

    /**
     * @param restored the global cut to resume from.
     * @param hook     run at the start of every update task's body, with the task's name.
     */
    private RankRun runRank(final Transport transport, final Path root, final boolean p2f, final int sweeps,
        final boolean complete, final long restored, final Consumer<String> hook) throws Exception
    {
        final int rank = transport.rank();
        final GlobalCheckpoints policy = GlobalCheckpoints.everyTasks(EVERY, root, restored, 0);
        final SpillwayConfig config = Spillway.builder().storeDir(root.resolve("spill-" + rank)).store(StoreKind.DIRECT)
            .dramBudget(64L * BYTES).workers(2).storeSizing(256, BYTES)
            .checkpoints(Checkpoints.store(root.resolve("rank-" + rank)).globalCut(restored).open(), policy);
        final Capturing protocol = new Capturing(p2f ? new P2fProtocol(rank, RANKS, PLAN, new P2fOptions(true,
            false), ReplayCopies.in(root.resolve("replays-" + rank))) : RankProtocol.NONE);
        final RankRun run = new RankRun(rank, restored);
        final DistributedSpillway ds = new DistributedSpillway(transport, config, protocol, run);
        final long[] digest = {0};
        try (ds)
        {
            run.baseFrom(protocol.delegate);
            final Data[] tiles = new Data[TILES];
            for (int i = 0; i < TILES; i++)
            {
                tiles[i] = ds.data("tile " + i, BYTES, i * RANKS / TILES);
            }
            submit(ds, tiles, sweeps, digest, hook);
            if (complete)
            {
                ds.awaitAll();
                for (final Transfer x : run.sends)
                {
                    final Data log = ds.local().lookup(RankProtocol.logTag(x.object, x.version, x.target));
                    if (log != null)
                    {
                        try (Acquired a = ds.local().acquire(log))
                        {
                            run.logs.put(log.tag(), crc(a.buffer().duplicate().position(0).limit(BYTES)));
                        }
                    }
                }
            }
            else
            {
                ds.local().awaitAll();
                final long last = (long)(TILES * (sweeps + 1)) / EVERY * EVERY;
                awaitUntil(() -> policy.globallyCommitted() >= last, () -> "rank " + rank + ": the cut at " + last +
                    " globally committed; newest " + policy.globallyCommitted() + "; waits:\n" +
                    ds.local().describeWaits(20));
                ds.barrier();
            }
        }
        assertNull(ds.restartNeeded(), () -> "rank " + rank + " stopped for a restart");
        run.digest = digest[0];
        run.figures = protocol.figures();
        run.policy = policy;
        run.sections.putAll(protocol.sections);
        return run;
    }

    /** The ring sweeps ({@link RingSweeps}), then a digest of the tiles on rank 0. */
    private static void submit(final DistributedSpillway ds, final Data[] tiles, final int sweeps,
        final long[] digest, final Consumer<String> hook)
    {
        RingSweeps.submit(ds, tiles, BYTES, sweeps, hook, (name, tile) -> { });
        if (sweeps == SWEEPS)
        {
            ds.task("digest").read(tiles).submit(ctx ->
            {
                long h = 17;
                for (final Data t : tiles)
                {
                    final ByteBuffer b = ctx.buffer(t);
                    for (int k = 0; k < BYTES; k += 8)
                    {
                        h = h * 1_000_003L + b.getLong(k);
                    }
                }
                digest[0] = h;
            });
        }
    }

    private static void awaitUntil(final BooleanSupplier condition,
        final Supplier<String> what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + LIMIT.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                fail("timed out after " + LIMIT.toSeconds() + " s waiting for " + what.get());
            }
            Thread.sleep(5);
        }
    }

    private record Transfer(int source, int target, String object, int version, long globalIndex)
    {
    }

    /** What one rank did: the sends it reports, its protocol's figures and the sections it kept. */
    private static final class RankRun implements DistributedSpillway.Recorder
    {
        final int rank;
        final long restored;
        final List<Transfer> sends = new CopyOnWriteArrayList<>();
        final Map<Long, byte[]> sections = new ConcurrentHashMap<>();
        /** Log object tag to the checksum of its contents at the end of the run. */
        final Map<String, Long> logs = new ConcurrentHashMap<>();
        final long[] ssnBase = new long[RANKS];
        final long[] receiveBase = new long[RANKS];
        RankProtocol.Figures figures;
        GlobalCheckpoints policy;
        long digest;

        RankRun(final int rank, final long restored)
        {
            this.rank = rank;
            this.restored = restored;
        }

        /** After a restore, channels continue from the restored section's positions. */
        void baseFrom(final RankProtocol protocol)
        {
            if (protocol instanceof P2fProtocol p)
            {
                for (int r = 0; r < RANKS; r++)
                {
                    ssnBase[r] = p.state().nextSsn(r);
                    receiveBase[r] = p.state().lastAccepted(r) + 1;
                }
            }
        }

        @Override
        public void task(final long globalIndex, final long seq)
        {
        }

        @Override
        public void transfer(final boolean send, final int source, final int target, final String object,
            final int version, final long globalIndex, final long seq)
        {
            if (send && globalIndex >= restored)
            {
                sends.add(new Transfer(source, target, object, version, globalIndex));
            }
        }

        @Override
        public void cut(final long globalIndex, final long frontier)
        {
        }
    }

    /**
     * Rank 0 opens a recovery session as its runtime starts when a rank was lost before (a rank that ran ahead and
     * died while rank 0 was still building its runtime): the recorder given to the runtime hears rank 0's report.
     */
    @Test
    void theRecorderHearsTheReportOfASessionOpenedAsTheRuntimeStarts() throws Exception
    {
        try (InProcessFabric fabric = new InProcessFabric(RANKS, LIMIT))
        {
            for (int r = 1; r < RANKS; r++)
            {
                fabric.kill(r, "lost before rank 0's runtime started");
            }
            final Transport transport = fabric.transport(0);
            final Path root = dir.resolve("early-loss");
            final GlobalCheckpoints policy = GlobalCheckpoints.everyTasks(EVERY, root, Cut.LOCAL, 0);
            final SpillwayConfig config = Spillway.builder().storeDir(root.resolve("spill-0")).store(StoreKind.DIRECT)
                .dramBudget(64L * BYTES).workers(1).storeSizing(256, BYTES)
                .checkpoints(Checkpoints.store(root.resolve("rank-0")).globalCut(Cut.LOCAL).open(), policy);
            final P2fProtocol protocol = new P2fProtocol(0, RANKS, PLAN, new P2fOptions(true, false),
                ReplayCopies.in(root.resolve("replays-0")));
            final CountDownLatch reported = new CountDownLatch(1);
            try (DistributedSpillway ignored = new DistributedSpillway(transport, config, protocol,
                new DistributedSpillway.Recorder()
                {
                    @Override
                    public void task(final long globalIndex, final long seq)
                    {
                    }

                    @Override
                    public void transfer(final boolean send, final int source, final int target, final String object,
                        final int version, final long globalIndex, final long seq)
                    {
                    }

                    @Override
                    public void cut(final long globalIndex, final long frontier)
                    {
                    }

                    @Override
                    public void reported(final long session)
                    {
                        reported.countDown();
                    }
                }))
            {
                awaitLatch(reported, "rank 0's recorder to hear its report for the session its start opened");
            }
        }
    }

    @Test
    void theCapturingProtocolForwardsEveryCall()
    {
        for (final Method m : RankProtocol.class.getMethods())
        {
            if (!Modifier.isStatic(m.getModifiers()))
            {
                assertDoesNotThrow(() -> Capturing.class.getDeclaredMethod(m.getName(), m.getParameterTypes()),
                    "Capturing must forward RankProtocol." + m.getName() + ", or the engine tests run without it");
            }
        }
    }

    /** Passes every call on, keeping the sections it gives. */
    private static final class Capturing implements RankProtocol
    {
        final RankProtocol delegate;
        final Map<Long, byte[]> sections = new ConcurrentHashMap<>();

        Capturing(final RankProtocol delegate)
        {
            this.delegate = delegate;
        }

        @Override
        public boolean active()
        {
            return delegate.active();
        }

        @Override
        public Stamp sending(final int target, final String tag, final int version, final int bytes)
        {
            return delegate.sending(target, tag, version, bytes);
        }

        @Override
        public boolean capturesAtSend(final int target)
        {
            return delegate.capturesAtSend(target);
        }

        @Override
        public long receiving(final int source)
        {
            return delegate.receiving(source);
        }

        @Override
        public void record(final DistributedSpillway.Recorder recorder)
        {
            delegate.record(recorder);
        }

        @Override
        public void close()
        {
            delegate.close();
        }

        @Override
        public void cut(final long globalIndex)
        {
            delegate.cut(globalIndex);
        }

        @Override
        public List<Ack> received(final int source, final Stamp stamp)
        {
            return delegate.received(source, stamp);
        }

        @Override
        public void acked(final int target, final Ack ack)
        {
            delegate.acked(target, ack);
        }

        @Override
        public boolean mayCommit(final long globalIndex)
        {
            return delegate.mayCommit(globalIndex);
        }

        @Override
        public String commitWait(final long globalIndex)
        {
            return delegate.commitWait(globalIndex);
        }

        @Override
        public byte[] section(final long globalIndex)
        {
            final byte[] s = delegate.section(globalIndex);
            if (s != null)
            {
                assertNotEquals(0, s.length);
                sections.put(globalIndex, s);
            }
            return s;
        }

        @Override
        public void restored(final byte[] section)
        {
            delegate.restored(section);
        }

        @Override
        public void globallyCommitted(final long globalIndex)
        {
            delegate.globallyCommitted(globalIndex);
        }

        @Override
        public Figures figures()
        {
            return delegate.figures();
        }

        @Override
        public void cutCommitted(final long globalIndex)
        {
            delegate.cutCommitted(globalIndex);
        }

        @Override
        public byte[] recoveryReport(final long session)
        {
            return delegate.recoveryReport(session);
        }

        @Override
        public long[] recoveryLine(final Map<Integer, Long> restoring, final Map<Integer, byte[]> reports)
        {
            return delegate.recoveryLine(restoring, reports);
        }

        @Override
        public boolean resumed()
        {
            return delegate.resumed();
        }

        @Override
        public byte[] hello(final int peer)
        {
            return delegate.hello(peer);
        }

        @Override
        public List<Replay> greeted(final int peer, final byte[] hello)
        {
            return delegate.greeted(peer, hello);
        }

        @Override
        public boolean suppressed(final int target, final long ssn)
        {
            return delegate.suppressed(target, ssn);
        }

        @Override
        public void posting(final int target, final long ssn)
        {
            delegate.posting(target, ssn);
        }

        @Override
        public boolean replayed(final int target, final long ssn)
        {
            return delegate.replayed(target, ssn);
        }

        @Override
        public void captured(final String logTag, final ByteBuffer payload)
        {
            delegate.captured(logTag, payload);
        }

        @Override
        public ByteBuffer payload(final String logTag)
        {
            return delegate.payload(logTag);
        }
    }
}
