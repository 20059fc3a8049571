package dev.spillway.resilience.redundancy;

import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.SpillwayConfig;
import dev.spillway.io.StoreKind;
import dev.spillway.ranks.DistributedSpillway;
import dev.spillway.rdma.Header;
import dev.spillway.rdma.InProcessFabric;
import dev.spillway.rdma.Message;
import dev.spillway.rdma.Transport;
import dev.spillway.resilience.RingSweeps;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Logical ranks over replicas in one JVM ({@link ReplicatedTransport} over an {@link InProcessFabric}, real
 * {@link DistributedSpillway} runtimes): every replica computes what the unreplicated run computes, each logical edge
 * carries r_s·r_d physical messages, a replica's loss is taken over by its sphere, and a corrupted copy is detected
 * by its receiver, which stops with two copies and drops it, outvoted, with three (design §D.2, §D.5).
 */
class ReplicatedRunTest
{
    private static final int RANKS = 2;
    private static final int TILES = 6;
    private static final int BYTES = 8192;
    private static final int SWEEPS = 5;
    private static final Duration LIMIT = Duration.ofSeconds(300);
    /** Tags from here on carry the small notices before each transfer's data ({@code RankTransfer}). */
    private static final int NOTICE_TAGS = 1 << 30;

    @TempDir
    Path dir;

    @Test
    void everyReplicaComputesTheUnreplicatedResultOverRsTimesRdMessagesPerEdge() throws Exception
    {
        final Job plain = run("1", Hooks.NONE);
        for (final String r : List.of("1.5", "2", "3"))
        {
            final Job replicated = run(r, Hooks.NONE);
            final RedundancyPlan plan = RedundancyPlan.of(RANKS, RedundancyDegree.parse(r));
            for (int slot = 0; slot < plan.processes(); slot++)
            {
                final int logical = replicated.spheres.rankOf(slot);
                assertEquals(plain.results.get(logical), replicated.results.get(slot),
                    r + "x, slot " + slot + " (rank " + logical + "): its tiles after every update");
                for (final Map.Entry<String, List<Long>> e : replicated.received.get(slot).entrySet())
                {
                    final String[] senderAndTag = e.getKey().split("/");
                    final int sender = replicated.spheres.rankOf(Integer.parseInt(senderAndTag[0]));
                    assertEquals(plain.received.get(logical).get(sender + "/" + senderAndTag[1]), e.getValue(),
                        r + "x, slot " + slot + ": the messages it took from slot " + senderAndTag[0] + " (rank " +
                            sender + ") with tag " + senderAndTag[1]);
                }
                assertEquals(plain.received.get(logical).size() * plan.replicasOf(1 - logical),
                    replicated.received.get(slot).size(), r + "x, slot " + slot + ": one sequence per sender slot " +
                        "and tag (two ranks)");
            }
            for (int s = 0; s < RANKS; s++)
            {
                for (int d = 0; d < RANKS; d++)
                {
                    if (s != d)
                    {
                        final long logical = plain.messages(s, d);
                        assertTrue(logical > 0, "rank " + s + " must send to rank " + d);
                        assertEquals(logical * plan.replicasOf(s) * plan.replicasOf(d), replicated.messages(s, d),
                            r + "x: physical messages from rank " + s + " to rank " + d);
                    }
                }
            }
        }
    }

    @Test
    void aReplicaLostInsideATaskOrBetweenTwoCopiesIsTakenOverWithTheSameResult() throws Exception
    {
        final Job plain = run("1", Hooks.NONE);
        // Slot 1 is rank 0's second replica; slot 3 is rank 1's second replica.
        final Job insideTask = run("2", new Hooks("update 1 sweep 2", 1, -1, -1, -1));
        final Job betweenCopies = run("2", new Hooks(null, -1, 2, 1, -1));
        for (final Job job : List.of(insideTask, betweenCopies))
        {
            assertEquals(1, job.failed.size(), "exactly the killed slot fails: " + job.failed);
            for (int slot = 0; slot < 4; slot++)
            {
                if (!job.failed.containsKey(slot))
                {
                    assertEquals(plain.results.get(job.spheres.rankOf(slot)), job.results.get(slot),
                        "slot " + slot + " ran on after the loss of slot " + job.failed.keySet());
                }
            }
            for (final Map.Entry<Integer, Double> c : job.coverage.entrySet())
            {
                assertEquals(0.5, c.getValue(), "slot " + c.getKey() + ": one of two spheres keeps two replicas");
            }
        }
    }

    @Test
    void aCopyCorruptedOnItsWayIsDetectedByItsReceiver() throws Exception
    {
        final Job plain = run("1", Hooks.NONE);
        final Job job = run("2", new Hooks(null, -1, -1, -1, 1));
        assertEquals(Set.of(2), job.mismatches.keySet(), "slot 1's corrupted tile went to slot 2 alone, whose " +
            "receive compares it with slot 0's copy");
        final String detected = job.mismatches.get(2).getMessage();
        assertTrue(detected.contains("the replicas of rank 0 sent rank 1 (slot 2) different copies"), detected);
        assertEquals(Set.of(2), job.failed.keySet(), "the detecting slot stops; the others run on");
        for (final int slot : List.of(0, 1, 3))
        {
            assertEquals(plain.results.get(job.spheres.rankOf(slot)), job.results.get(slot), "slot " + slot +
                " computes the unreplicated result");
        }
    }

    @Test
    void aCopyCorruptedOnItsWayIsOutvotedByTheOtherTwoOfThreeAndNobodyStops() throws Exception
    {
        final Job plain = run("1", Hooks.NONE);
        // Rank 0 runs on slots 0, 1 and 2, copied to each receiver in that order: slot 1's copy lands in the buffer
        // and is overwritten by slot 2's; slot 2's comes once slots 0 and 1 agreed, so it is only compared.
        for (final int flipSlot : List.of(1, 2))
        {
            final Job job = run("3", new Hooks(null, -1, -1, -1, flipSlot));
            assertEquals(Map.of(), job.mismatches, "flip on slot " + flipSlot);
            assertEquals(Map.of(), job.failed, "flip on slot " + flipSlot);
            assertEquals(1L, job.outvoted.values().stream().mapToLong(Long::longValue).sum(), "flip on slot " +
                flipSlot + ": one copy outvoted, by slot " + job.outvoted);
            for (int slot = 0; slot < 6; slot++)
            {
                assertEquals(plain.results.get(job.spheres.rankOf(slot)), job.results.get(slot), "flip on slot " +
                    flipSlot + ": slot " + slot + " computes the unreplicated result");
            }
        }
    }

    /**
     * Test hooks: kill {@code killSlot} as it starts task {@code killTask}; or kill {@code killSlot} once slot
     * {@code receiver} took its first copy of a data message; or flip a bit in the first tile slot {@code flipSlot}
     * sends.
     */
    private record Hooks(String killTask, int killSlot, int receiver, int receiverKill, int flipSlot)
    {
        static final Hooks NONE = new Hooks(null, -1, -1, -1, -1);
    }

    /** What each slot computed and received, the physical messages per pair of slots, and the slots that failed. */
    private static final class Job
    {
        final Map<Integer, Map<String, Long>> results = new ConcurrentHashMap<>();
        final Map<Integer, Map<String, List<Long>>> received = new ConcurrentHashMap<>();
        final Map<Long, AtomicLong> physical = new ConcurrentHashMap<>();
        final Map<Integer, Throwable> failed = new ConcurrentHashMap<>();
        final Map<Integer, Double> coverage = new ConcurrentHashMap<>();
        final Map<Integer, Long> outvoted = new ConcurrentHashMap<>();
        final Map<Integer, ReplicaMismatchException> mismatches = new ConcurrentHashMap<>();
        Spheres spheres;

        long messages(final int from, final int to)
        {
            long sum = 0;
            for (final int s : spheresSlots(from))
            {
                for (final int d : spheresSlots(to))
                {
                    final AtomicLong n = physical.get((long)s << 32 | d);
                    sum += n == null ? 0 : n.get();
                }
            }
            return sum;
        }

        private List<Integer> spheresSlots(final int logical)
        {
            final List<Integer> slots = new ArrayList<>();
            for (int s = 0; s < results.size() + failed.size(); s++)
            {
                if (spheres.rankOf(s) == logical)
                {
                    slots.add(s);
                }
            }
            return slots;
        }
    }

    private Job run(final String degree, final Hooks hooks) throws Exception
    {
        final RedundancyPlan plan = RedundancyPlan.of(RANKS, RedundancyDegree.parse(degree));
        final int processes = (int)plan.processes();
        final SpherePlacement placement = plan.place(Collections.nCopies(processes, "localhost"));
        final Job job = new Job();
        job.spheres = new Spheres(placement);
        final Path root = dir.resolve(degree + "-" + System.nanoTime());
        final AtomicBoolean flipped = new AtomicBoolean();
        try (InProcessFabric fabric = new InProcessFabric(processes, LIMIT))
        {
            final ExecutorService pool = Executors.newFixedThreadPool(processes);
            try
            {
                final List<Future<?>> slots = new ArrayList<>();
                final List<ReplicatedTransport> transports = new ArrayList<>();
                for (int slot = 0; slot < processes; slot++)
                {
                    job.received.put(slot, new TreeMap<>());
                    final Transport counted = intercepted(fabric, fabric.transport(slot), job, hooks, flipped);
                    final int s = slot;
                    transports.add(new ReplicatedTransport(counted, placement, mismatch ->
                    {
                        job.mismatches.put(s, mismatch);
                        fabric.kill(s, "slot " + s + " stops: " + mismatch.getMessage());
                    }));
                }
                for (int slot = 0; slot < processes; slot++)
                {
                    final int s = slot;
                    final ReplicatedTransport transport = transports.get(slot);
                    slots.add(pool.submit(() ->
                    {
                        try
                        {
                            job.results.put(s, runSlot(transport, root.resolve("slot-" + s), (name, tile) ->
                            {
                                if (s == hooks.killSlot && name.equals(hooks.killTask))
                                {
                                    fabric.kill(s, "killed by the test inside " + name);
                                }
                            }));
                            job.coverage.put(s, transport.figures().sdcCoverage());
                            job.outvoted.put(s, transport.figures().copiesOutvoted());
                        }
                        catch (final Exception | AssertionError e)
                        {
                            job.failed.put(s, e);
                        }
                        return null;
                    }));
                }
                for (final Future<?> f : slots)
                {
                    f.get(2 * LIMIT.toSeconds(), TimeUnit.SECONDS);
                }
                for (final ReplicatedTransport t : transports)
                {
                    t.close();
                }
            }
            finally
            {
                pool.shutdownNow();
            }
        }
        return job;
    }

    /** Runs the ring program; returns each update's output checksum by task name. */
    private static Map<String, Long> runSlot(final ReplicatedTransport transport, final Path root,
        final BiConsumer<String, ByteBuffer> before) throws Exception
    {
        final Map<String, Long> out = new ConcurrentHashMap<>();
        final SpillwayConfig config = Spillway.builder().storeDir(root).store(StoreKind.DIRECT)
            .dramBudget(4L * BYTES).workers(2).storeSizing(256, BYTES);
        try (DistributedSpillway ds = new DistributedSpillway(transport, config))
        {
            final Data[] tiles = new Data[TILES];
            for (int i = 0; i < TILES; i++)
            {
                tiles[i] = ds.data("tile " + i, BYTES, i * RANKS / TILES);
            }
            RingSweeps.submit(ds, tiles, BYTES, SWEEPS, name -> before.accept(name, null),
                (name, tile) -> out.put(name, crc(tile, BYTES)));
            ds.awaitAll();
        }
        return new TreeMap<>(out);
    }

    private static long crc(final ByteBuffer b, final int length)
    {
        final CRC32C crc = new CRC32C();
        crc.update(b.duplicate().position(0).limit(length));
        return crc.getValue();
    }

    /**
     * The fabric's transport of one slot, counting its sends per target slot, recording each data message it takes
     * by sender and tag, and applying the hooks that act on messages.
     */
    private static Transport intercepted(final InProcessFabric fabric, final Transport t, final Job job,
        final Hooks hooks, final AtomicBoolean flipped)
    {
        final int slot = t.rank();
        return (Transport)Proxy.newProxyInstance(Transport.class.getClassLoader(), new Class<?>[] {Transport.class},
            (proxy, method, args) ->
            {
                try
                {
                    if (method.getName().equals("send"))
                    {
                        final int target = (int)args[0];
                        final Header header = (Header)args[1];
                        job.physical.computeIfAbsent((long)slot << 32 | target, k -> new AtomicLong()).incrementAndGet();
                        if (slot == hooks.flipSlot && header.tag() >= DistributedSpillway.FIRST_DATA_TAG &&
                            header.tag() < NOTICE_TAGS && flipped.compareAndSet(false, true))
                        {
                            final ByteBuffer src = (ByteBuffer)args[2];
                            final ByteBuffer copy = ByteBuffer.allocateDirect(src.remaining());
                            copy.put(src.duplicate()).flip();
                            copy.put(copy.limit() / 2, (byte)(copy.get(copy.limit() / 2) ^ 0x04));
                            return t.send(target, header, copy);
                        }
                    }
                    final Object result = method.invoke(t, args);
                    if (method.getName().equals("receive") && (int)args[1] >= DistributedSpillway.FIRST_DATA_TAG)
                    {
                        final int source = (int)args[0];
                        final int tag = (int)args[1];
                        final ByteBuffer dst = (ByteBuffer)args[2];
                        @SuppressWarnings("unchecked")
                        final CompletableFuture<Message> received = (CompletableFuture<Message>)result;
                        return received.thenApply(m ->
                        {
                            if (slot == hooks.receiver && job.spheres.rankOf(source) != job.spheres.rankOf(slot) &&
                                source != hooks.receiverKill && flipped.compareAndSet(false, true))
                            {
                                fabric.kill(hooks.receiverKill, "killed by the test between two copies slot " +
                                    slot + " takes");
                            }
                            record(job, slot, source, tag, dst, m);
                            return m;
                        });
                    }
                    return result;
                }
                catch (final InvocationTargetException e)
                {
                    throw e.getCause();
                }
            });
    }

    /** Records a copy's checksum by its sender slot and tag. */
    private static void record(final Job job, final int slot, final int source, final int tag, final ByteBuffer dst,
        final Message m)
    {
        final Map<String, List<Long>> bySender = job.received.get(slot);
        synchronized (bySender)
        {
            bySender.computeIfAbsent(source + "/" + tag, k -> new ArrayList<>()).add(crc(dst, m.length()));
        }
    }
}
