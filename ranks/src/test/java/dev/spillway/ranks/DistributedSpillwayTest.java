package dev.spillway.ranks;

import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.TaskFailedException;
import dev.spillway.TaskHandle;
import dev.spillway.io.StoreKind;
import dev.spillway.rdma.Collectives;
import dev.spillway.rdma.Header;
import dev.spillway.rdma.InProcessFabric;
import dev.spillway.rdma.Transport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DistributedSpillwayTest
{
    private static final int OBJECTS = 8;
    private static final int BYTES = 64 << 10;

    @TempDir
    Path dir;

    /** The same program on 1, 2 and 3 ranks gives the same bytes; the small budget makes received copies spill. */
    @Test
    void resultsDoNotDependOnTheNumberOfRanks() throws Exception
    {
        final List<Outcome> one = run(1, 8L * BYTES, DistributedSpillwayTest::program);
        final List<Outcome> two = run(2, 8L * BYTES, DistributedSpillwayTest::program);
        final List<Outcome> three = run(3, 5L * BYTES, DistributedSpillwayTest::program);
        assertEquals(one.get(0).digest, two.get(0).digest);
        assertEquals(one.get(0).digest, three.get(0).digest);
        assertEquals(0, one.get(0).stats.bytesReceived());
        for (final List<Outcome> ranks : List.of(two, three))
        {
            final long received = ranks.stream().mapToLong(o -> o.stats.bytesReceived()).sum();
            final long sent = ranks.stream().mapToLong(o -> o.stats.bytesSent()).sum();
            assertTrue(received > 0, "nothing moved between ranks");
            assertEquals(sent, received);
            final long tasks = ranks.stream().mapToLong(o -> o.stats.tasksHere()).sum();
            assertEquals(one.get(0).stats.tasksHere(), tasks, "every task runs on exactly one rank");
        }
        assertTrue(three.stream().mapToLong(o -> o.spilled).sum() > 0, "the small budget never spilled");
    }

    /** The digest compared above tells a sweep less from a full run, so equal digests mean equal updates. */
    @Test
    void theDigestSeesEveryUpdate() throws Exception
    {
        final String fresh = run(1, 8L * BYTES, DistributedSpillwayTest::program).get(0).digest;
        final String changed = run(1, 8L * BYTES, (ds, out) -> program(ds, out, 2)).get(0).digest;
        assertNotEquals(fresh, changed);
    }

    @Test
    void tasksRunOnTheOwnerOfWhatTheyWrite() throws Exception
    {
        final List<Outcome> ranks = run(2, 8L * BYTES, (ds, out) ->
        {
            final Data a = ds.data("a", BYTES, 1);
            final Data b = ds.data("b", BYTES, 0);
            final int[] ranOn = {-1};
            ds.task("write a").write(a).submit(ctx -> ranOn[0] = ds.rank());
            final TaskHandle h = ds.task("b from a").read(a).write(b).submit(ctx ->
                ctx.buffer(b).put(0, ctx.buffer(a), 0, BYTES));
            ds.awaitAll();
            out[0] = ranOn[0] + "/" + h.waitReason();
        });
        assertEquals("-1/done", ranks.get(0).digest);
        assertEquals("1/runs on rank 0", ranks.get(1).digest);
        assertEquals(BYTES, ranks.get(0).stats.bytesReceived());
    }

    @Test
    void aLostPeerFailsTheTasksWaitingForItNamingTheRank() throws Exception
    {
        try (InProcessFabric fabric = new InProcessFabric(2, Duration.ofSeconds(200)))
        {
            final ExecutorService pool = Executors.newSingleThreadExecutor();
            final CountDownLatch waiting = new CountDownLatch(1);
            final Future<TaskFailedException> rank0 = pool.submit(() ->
            {
                try (DistributedSpillway ds = new DistributedSpillway(fabric.transport(0), config(0, 8L * BYTES)))
                {
                    final Data far = ds.data("far", BYTES, 1);
                    ds.task("write far").write(far).submit(ctx -> { });
                    final TaskHandle sink = ds.task("read far").read(far).submit(ctx -> { });
                    waiting.countDown();
                    return assertThrows(TaskFailedException.class, () -> sink.join(Duration.ofSeconds(300)));
                }
            });
            // Kill rank 1 once rank 0 has a task waiting for it (rank 1 never answers), not after a guessed delay.
            assertTrue(waiting.await(300, TimeUnit.SECONDS) || rank0.isDone(), "rank 0 did not submit its tasks in 300 s");
            fabric.kill(1, "killed by the test");
            final TaskFailedException e = rank0.get(300, TimeUnit.SECONDS);
            assertTrue(describe(e).contains("rank 1"), describe(e));
            pool.shutdownNow();
        }
    }

    /**
     * A send still posted when the job is lost keeps its buffer until its operation ends: the transport may read the
     * buffer until then, and the engine reuses it as soon as the task ends. The rank closes its transport, which ends
     * the send, and only then does the task end, its buffer intact.
     */
    @Test
    void aSendPostedWhenTheJobIsLostKeepsItsBufferUntilTheTransportLetsGoOfIt() throws Exception
    {
        // Rank 1 sends 't' (its first object) to rank 0, which never takes the data.
        final HeldDataTransport held = lossWhilePosted("the data of 't'", (ds, rank0) ->
        {
            final Data t = ds.data("t", BYTES, 1);
            final Data u = ds.data("u", BYTES, 0);
            ds.task("write t").write(t).submit(ctx -> fill(ctx.buffer(t), (byte)0x5A));
            ds.task("read t into u").read(t).write(u).submit(ctx -> { });
        });
        final byte[] expected = new byte[BYTES];
        Arrays.fill(expected, (byte)0x5A);
        assertTrue(Arrays.equals(expected, held.atClose()), "the buffer of 't' as the transport let go of it");
        assertTrue(held.waitsAtClose().contains("send 't' v1 to rank 0") &&
            held.waitsAtClose().contains("its posted data to end"), "as the transport let go of the buffer, the send " +
            "still held it:\n" + held.waitsAtClose());
    }

    /**
     * A receive still posted when the job is lost keeps its buffer until its operation ends: the transport may write
     * into it until then. The rank closes its transport, which ends the receive, and only then does the task end.
     */
    @Test
    void aReceivePostedWhenTheJobIsLostKeepsItsBufferUntilTheTransportLetsGoOfIt() throws Exception
    {
        // Rank 1 receives 'u' (its first object) from rank 0, which sends the notice and never the data.
        final HeldDataTransport held = lossWhilePosted("the receive of 'u'", (ds, rank0) ->
        {
            final Data u = ds.data("u", BYTES, 0);
            final Data t = ds.data("t", BYTES, 1);
            ds.task("write u").write(u).submit(ctx -> { });
            ds.task("read u into t").read(u).write(t).submit(ctx -> { });
            Collectives.await(rank0.send(1, new Header(Header.NO_RANK,
                DistributedSpillway.FIRST_DATA_TAG + RankTransfer.NOTICE_TAG_OFFSET, 0, 0, 1),
                ByteBuffer.allocateDirect(8)));
        });
        assertTrue(held.waitsAtClose().contains("receive 'u' v1 from rank 0") &&
            held.waitsAtClose().contains("its posted receive to end"), "as the transport let go of the buffer, the " +
            "receive still held it:\n" + held.waitsAtClose());
    }

    /**
     * Runs {@code program} on rank 1 of 3 over a transport that holds its operations on its first object, then loses
     * rank 2 once one is posted: rank 1's tasks must end only once the transport let go of that operation.
     */
    private HeldDataTransport lossWhilePosted(final String what,
        final BiConsumer<DistributedSpillway, Transport> program) throws Exception
    {
        try (InProcessFabric fabric = new InProcessFabric(3, Duration.ofSeconds(200)))
        {
            final HeldDataTransport held = new HeldDataTransport(fabric.transport(1),
                DistributedSpillway.FIRST_DATA_TAG);
            final ExecutorService pool = Executors.newSingleThreadExecutor();
            try (DistributedSpillway ds = new DistributedSpillway(held, config(1, 8L * BYTES)))
            {
                held.waits(() -> ds.local().describeWaits(10));
                program.accept(ds, fabric.transport(0));
                awaitPosted(held, ds, what);
                fabric.kill(2, "killed by the test");
                final Throwable failure = awaitFailure(pool, ds);
                assertTrue(held.ended(), "rank 1's tasks ended, and the engine may reuse the buffer of " + what +
                    ", while it was still posted (" + failure + ")");
            }
            finally
            {
                pool.shutdownNow();
            }
            return held;
        }
    }

    private static void awaitPosted(final HeldDataTransport held, final DistributedSpillway ds, final String what)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
        while (!held.posted())
        {
            assertTrue(System.nanoTime() < deadline, "rank 1 did not post " + what + " in 300 s:\n" +
                ds.local().describeWaits(10));
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** @return how rank 1's {@code awaitAll} failed once the job was lost. */
    private static Throwable awaitFailure(final ExecutorService pool, final DistributedSpillway ds) throws Exception
    {
        final Future<Throwable> ended = pool.submit(() -> assertThrows(RuntimeException.class, ds::awaitAll));
        try
        {
            return ended.get(300, TimeUnit.SECONDS);
        }
        catch (final TimeoutException e)
        {
            throw new AssertionError("rank 1's tasks did not end within 300 s of the loss:\n" +
                ds.local().describeWaits(10), e);
        }
    }

    private static void fill(final ByteBuffer b, final byte value)
    {
        for (int i = 0; i < b.capacity(); i++)
        {
            b.put(i, value);
        }
    }

    @Test
    void aReplayedOlderVersionIsDroppedAndCounted() throws Exception
    {
        final List<Outcome> ranks = run(2, 8L * BYTES, (ds, out) ->
        {
            final Data a = ds.data("a", BYTES, 1);
            final List<CompletableFuture<Void>> stale = new ArrayList<>();
            if (ds.rank() == 1)
            {
                // A stale copy of version 0 (notice and data), as a replay would send it, ahead of the real one;
                // in-process sends complete once matched, so they are awaited at the end.
                stale.add(ds.transport().send(0, new Header(Header.NO_RANK,
                    DistributedSpillway.FIRST_DATA_TAG + RankTransfer.NOTICE_TAG_OFFSET, 0, 0, 0),
                    ByteBuffer.allocateDirect(8)));
                stale.add(ds.transport().send(0, new Header(Header.NO_RANK, DistributedSpillway.FIRST_DATA_TAG, 0, 0,
                    0), ByteBuffer.allocateDirect(BYTES)));
            }
            ds.task("write a").write(a).submit(ctx -> ctx.buffer(a).putInt(0, 41));
            final TaskHandle read = ds.task("read a").read(a).submit(ctx -> out[0] = "read " +
                ctx.buffer(a).getInt(0));
            ds.awaitAll();
            stale.forEach(Collectives::await);
            if (ds.rank() == 1)
            {
                out[0] = "sent";
            }
            read.join();
        });
        assertEquals("read 41", ranks.get(0).digest);
        assertEquals(2, ranks.get(0).stats.duplicates(), "the stale notice and the stale data are dropped");
    }

    @Test
    void ranksRunningDifferentProgramsAreDetected() throws Exception
    {
        final List<Outcome> ranks = run(2, 8L * BYTES, (ds, out) ->
        {
            final Data a = ds.data("a", BYTES, 1);
            ds.task("write a").write(a).submit(ctx -> ctx.buffer(a).putInt(0, 1));
            if (ds.rank() == 1)
            {
                ds.task("extra write a").readWrite(a).submit(ctx -> ctx.buffer(a).putInt(0, 2));
            }
            final TaskHandle h = ds.task("read a").read(a).submit(ctx -> { });
            try
            {
                h.join(Duration.ofSeconds(300));
                out[0] = "joined";
            }
            catch (final TaskFailedException e)
            {
                out[0] = describe(e);
            }
        });
        assertTrue(ranks.get(0).digest.contains("do not run the same program"), ranks.get(0).digest);
    }

    @Test
    void ownersAreDealtOverANearlySquareGrid()
    {
        assertEquals(1, Owners.gridRows(3));
        assertEquals(2, Owners.gridRows(4));
        assertEquals(2, Owners.gridRows(6));
        assertEquals(3, Owners.blockCyclic(1, 1, 4));
        assertEquals(5, Owners.blockCyclic(3, 5, 6));
        assertEquals(0, Owners.slab(2, 10, 4));
        assertEquals(3, Owners.slab(9, 10, 4));
        assertThrows(IllegalArgumentException.class, () -> Owners.slab(10, 10, 4));
    }

    private static String describe(final Throwable e)
    {
        final StringBuilder s = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause())
        {
            s.append(t).append(" | ");
        }
        return s.toString();
    }

    static void program(final DistributedSpillway ds, final String[] out)
    {
        program(ds, out, 3);
    }

    /** Fills, sweeps of updates reading neighbours, a two-output task, then a digest on rank 0. */
    static void program(final DistributedSpillway ds, final String[] out, final int sweeps)
    {
        final Data[] x = new Data[OBJECTS];
        for (int i = 0; i < OBJECTS; i++)
        {
            x[i] = ds.data("x" + i, BYTES, i % ds.ranks());
        }
        for (int i = 0; i < OBJECTS; i++)
        {
            final Data d = x[i];
            final int seed = i;
            ds.task("fill " + i).write(d).submit(ctx ->
            {
                final ByteBuffer b = ctx.buffer(d);
                for (int e = 0; e < BYTES / 8; e++)
                {
                    b.putDouble(e * 8, seed + e * 1e-3);
                }
            });
        }
        final Data scratch = ds.data("scratch", BYTES, 0);
        for (int s = 0; s < sweeps; s++)
        {
            for (int i = 0; i < OBJECTS; i++)
            {
                final Data me = x[i];
                final Data y = x[(i + 1) % OBJECTS];
                final Data z = x[(i + 3) % OBJECTS];
                ds.task("update " + i + " sweep " + s).readWrite(me).read(y, z).scratch(scratch).submit(ctx ->
                {
                    final ByteBuffer m = ctx.buffer(me);
                    final ByteBuffer yb = ctx.buffer(y);
                    final ByteBuffer zb = ctx.buffer(z);
                    for (int e = 0; e < BYTES / 8; e++)
                    {
                        m.putDouble(e * 8, 0.5 * m.getDouble(e * 8) + 0.25 * yb.getDouble(e * 8) -
                            0.125 * zb.getDouble(e * 8));
                    }
                });
            }
            final Data a = x[s % OBJECTS];
            final Data b = x[(s + 5) % OBJECTS];
            ds.task("swap " + s).readWrite(a, b).submit(ctx ->
            {
                final ByteBuffer ab = ctx.buffer(a);
                final ByteBuffer bb = ctx.buffer(b);
                for (int e = 0; e < BYTES; e += 8)
                {
                    final long v = ab.getLong(e);
                    ab.putLong(e, bb.getLong(e));
                    bb.putLong(e, v);
                }
            });
        }
        final long[] crcs = new long[OBJECTS];
        for (int i = 0; i < OBJECTS; i++)
        {
            final Data d = x[i];
            final int index = i;
            ds.task("digest " + i).read(d).submit(ctx ->
            {
                final CRC32C crc = new CRC32C();
                crc.update(ctx.buffer(d));
                crcs[index] = crc.getValue();
            });
        }
        ds.awaitAll();
        out[0] = Arrays.toString(crcs);
    }

    private record Outcome(String digest, RankStats stats, long spilled)
    {
    }

    private dev.spillway.SpillwayConfig config(final int rank, final long budget)
    {
        return Spillway.builder().storeDir(dir.resolve("rank" + rank)).store(StoreKind.DIRECT).dramBudget(budget)
            .workers(1).storeSizing(256, 64 << 10);
    }

    private List<Outcome> run(final int size, final long budget, final BiConsumer<DistributedSpillway, String[]> body)
        throws Exception
    {
        // The operation timeout ends a rank's transfer that its peer never matches (see the different-programs test).
        try (InProcessFabric fabric = new InProcessFabric(size, Duration.ofSeconds(20)))
        {
            final ExecutorService pool = Executors.newFixedThreadPool(size);
            try
            {
                final List<Future<Outcome>> futures = new ArrayList<>();
                for (int r = 0; r < size; r++)
                {
                    final int rank = r;
                    futures.add(pool.submit(() ->
                    {
                        try (DistributedSpillway ds = new DistributedSpillway(fabric.transport(rank),
                            config(rank, budget)))
                        {
                            final String[] out = new String[1];
                            body.accept(ds, out);
                            ds.barrier();
                            return new Outcome(out[0], ds.stats(), ds.local().stats().nvmBytesWritten());
                        }
                    }));
                }
                final List<Outcome> outcomes = new ArrayList<>();
                for (final Future<Outcome> f : futures)
                {
                    outcomes.add(f.get(600, TimeUnit.SECONDS));
                }
                return outcomes;
            }
            finally
            {
                pool.shutdownNow();
            }
        }
    }
}
