package dev.spillway.resilience.redundancy;

import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.SpillwayConfig;
import dev.spillway.checkpoint.Cut;
import dev.spillway.io.StoreKind;
import dev.spillway.ranks.DistributedSpillway;
import dev.spillway.ranks.GlobalCheckpoints;
import dev.spillway.rdma.InProcessFabric;
import dev.spillway.resilience.Checkpoints;
import dev.spillway.resilience.RingSweeps;
import dev.spillway.resilience.store.GenerationFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What replicas share as a replicated job starts ({@link ReplicatedTransport#join}, {@link PartnerCopy}): the hosts
 * the processes name place every sphere alike in every process, on distinct hosts where the slots allow it, and a
 * generation a replica lacks arrives over the transport byte for byte, a corrupted one failing verification.
 */
class ReplicatedJoinTest
{
    private static final Duration LIMIT = Duration.ofSeconds(120);
    private static final int TILES = 4;
    private static final int BYTES = 4096;
    private static final int EVERY = 6;

    @TempDir
    Path dir;

    @Test
    void everyProcessPlacesTheSpheresOnDistinctHostsFromTheHostsTheyName() throws Exception
    {
        // Slots 0 and 1 on host a, 2 and 3 on b: each sphere gets one replica on each.
        final List<ReplicatedTransport> split = joinAll(4, slot -> slot < 2 ? "a" : "b");
        for (final ReplicatedTransport t : split)
        {
            final SpherePlacement p = t.placement();
            assertEquals(split.get(0).placement().slotsOf(0), p.slotsOf(0), "slot " + t.slot());
            assertEquals(split.get(0).placement().slotsOf(1), p.slotsOf(1), "slot " + t.slot());
            for (int rank = 0; rank < 2; rank++)
            {
                final List<Integer> slots = p.slotsOf(rank);
                assertNotEquals(p.hostOf(slots.get(0)), p.hostOf(slots.get(1)), "rank " + rank + ": " + slots);
            }
            assertEquals(List.of(), p.warnings());
        }
        final List<ReplicatedTransport> one = joinAll(4, slot -> "a");
        assertEquals(List.of("replicas of 2 spheres share host a: they survive a process's death there, not the " +
            "host's"), one.get(0).placement().warnings());
    }

    @Test
    void aGenerationArrivesFromAPartnerByteForByteAndACorruptedOneFailsVerification() throws Exception
    {
        final Path source = dir.resolve("source");
        final long cut = checkpointedRun(source);
        final String blocks = GenerationFiles.names(source, GenerationFiles.ofGlobalCut(source, cut)).get(0);

        final Path received = dir.resolve("received");
        Files.createDirectories(received);
        Files.writeString(received.resolve("stale"), "a generation newer than the cut");
        // Chunks of 1000 bytes: every file takes several, the last a short one.
        assertTrue(sizes(source, cut) > 3 * 1000, "files to split: " + sizes(source, cut));
        assertEquals(sizes(source, cut), copy(source, received, cut, 1000), "bytes received");
        assertNull(GenerationFiles.unverified(received, cut));
        assertTrue(Files.notExists(received.resolve("stale")), "nothing newer than the cut stays");
        for (final String name : GenerationFiles.names(source, GenerationFiles.ofGlobalCut(source, cut)))
        {
            assertArrayEquals(Files.readAllBytes(source.resolve(name)), Files.readAllBytes(received.resolve(name)),
                name);
        }

        final byte[] flipped = Files.readAllBytes(source.resolve(blocks));
        flipped[flipped.length / 2] ^= 0x20;
        Files.write(source.resolve(blocks), flipped);
        final Path corrupted = dir.resolve("corrupted");
        copy(source, corrupted, cut, PartnerCopy.CHUNK);
        final String why = GenerationFiles.unverified(corrupted, cut);
        assertNotNull(why, "a flipped byte in " + blocks + " must fail verification");
    }

    @Test
    void aReplicaTakesTheCutFromTheNextHolderWhenTheFirstCopyFailsVerificationOrItsSenderIsLost() throws Exception
    {
        final Path source = dir.resolve("source");
        final long cut = checkpointedRun(source);
        final String blocks = GenerationFiles.names(source, GenerationFiles.ofGlobalCut(source, cut)).get(0);
        final Path corrupt = copyOf(source, "corrupt");
        final byte[] flipped = Files.readAllBytes(corrupt.resolve(blocks));
        flipped[flipped.length / 2] ^= 0x20;
        Files.write(corrupt.resolve(blocks), flipped);

        // Slot 0 holds a corrupt copy, slot 1 a sound one, slot 2 none.
        final List<String> said = shareAmongThree(cut, corrupt, copyOf(source, "sound"), dir.resolve("lacking"),
            false);
        assertNull(GenerationFiles.unverified(dir.resolve("lacking"), cut), String.join("\n", said));
        assertTrue(said.stream().anyMatch(m -> m.contains("slot 0's copy failed verification") &&
            m.contains("asking slot 1")), String.join("\n", said));
        assertTrue(said.stream().anyMatch(m -> m.contains("from slot 1") && m.contains("every block verified")),
            String.join("\n", said));

        // Slot 0 is lost before it sends: the copy comes from slot 1.
        final List<String> afterLoss = shareAmongThree(cut, copyOf(source, "first"), copyOf(source, "second"),
            dir.resolve("lacking-2"), true);
        assertNull(GenerationFiles.unverified(dir.resolve("lacking-2"), cut), String.join("\n", afterLoss));
        assertTrue(afterLoss.stream().anyMatch(m -> m.contains("slot 0 was lost")), String.join("\n", afterLoss));
    }

    /**
     * Runs {@link ReplicaRestore#shareCut} in a 1-rank 3x job: slots 0 and 1 hold the cut in {@code first} and
     * {@code second}, slot 2 lacks it and takes it into {@code lacking}; slot 0 is lost first when {@code loseFirst}.
     *
     * @return what the replicas said.
     */
    private static List<String> shareAmongThree(final long cut, final Path first, final Path second,
        final Path lacking, final boolean loseFirst) throws Exception
    {
        final SpherePlacement placement = RedundancyPlan.of(1, RedundancyDegree.parse("3")).place(
            List.of("h", "h", "h"));
        final List<String> said = java.util.Collections.synchronizedList(new ArrayList<>());
        final Path[] dirs = {first, second, lacking};
        try (InProcessFabric fabric = new InProcessFabric(3, LIMIT))
        {
            final List<CompletableFuture<Void>> replicas = new ArrayList<>();
            for (int slot = loseFirst ? 1 : 0; slot < 3; slot++)
            {
                final ReplicatedTransport t = new ReplicatedTransport(fabric.transport(slot), placement, m -> { });
                final Path own = dirs[slot];
                replicas.add(CompletableFuture.runAsync(() ->
                {
                    try
                    {
                        ReplicaRestore.shareCut(t, own, own.getParent(), cut, new ArrayList<>(List.of(0, 1)),
                            List.of(2), said::add, 1000);
                    }
                    catch (final Exception e)
                    {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            if (loseFirst)
            {
                fabric.kill(0, "killed by the test");
            }
            for (final CompletableFuture<Void> replica : replicas)
            {
                replica.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
            }
        }
        return said;
    }

    private Path copyOf(final Path source, final String name) throws Exception
    {
        final Path to = Files.createDirectories(dir.resolve(name));
        try (java.util.stream.Stream<Path> files = Files.list(source))
        {
            for (final Path f : files.toList())
            {
                Files.copy(f, to.resolve(f.getFileName()));
            }
        }
        return to;
    }

    /** Joins {@code processes} slots of a 2-rank job, each naming its host, on threads, as the processes would. */
    private static List<ReplicatedTransport> joinAll(final int processes, final IntFunction<String> host)
        throws Exception
    {
        final RedundancyPlan plan = RedundancyPlan.of(2, RedundancyDegree.parse("2"));
        try (InProcessFabric fabric = new InProcessFabric(processes, LIMIT))
        {
            final List<CompletableFuture<ReplicatedTransport>> joins = new ArrayList<>();
            for (int slot = 0; slot < processes; slot++)
            {
                final int s = slot;
                joins.add(CompletableFuture.supplyAsync(() -> ReplicatedTransport.join(fabric.transport(s), plan,
                    host.apply(s), mismatch -> { })));
            }
            final List<ReplicatedTransport> out = new ArrayList<>();
            for (final CompletableFuture<ReplicatedTransport> join : joins)
            {
                out.add(join.get(LIMIT.toSeconds(), TimeUnit.SECONDS));
            }
            return out;
        }
    }

    /** Sends {@code from}'s generation of {@code cut} from slot 0 to slot 1 of a 1-rank 2x job into {@code to}. */
    private static long copy(final Path from, final Path to, final long cut, final int chunk) throws Exception
    {
        final RedundancyPlan plan = RedundancyPlan.of(1, RedundancyDegree.parse("2"));
        final SpherePlacement placement = plan.place(List.of("h", "h"));
        try (InProcessFabric fabric = new InProcessFabric(2, LIMIT))
        {
            final ReplicatedTransport sender = new ReplicatedTransport(fabric.transport(0), placement, m -> { });
            final ReplicatedTransport receiver = new ReplicatedTransport(fabric.transport(1), placement, m -> { });
            final CompletableFuture<Long> sent = CompletableFuture.supplyAsync(() ->
            {
                try
                {
                    return PartnerCopy.send(sender, 1, from, cut, chunk);
                }
                catch (final Exception e)
                {
                    throw new IllegalStateException(e);
                }
            });
            final long got = PartnerCopy.receive(receiver, 0, to, chunk);
            assertEquals((long)sent.get(LIMIT.toSeconds(), TimeUnit.SECONDS), got, "bytes sent and received");
            return got;
        }
    }

    private static long sizes(final Path dir, final long cut) throws Exception
    {
        long total = 0;
        for (final String name : GenerationFiles.names(dir, GenerationFiles.ofGlobalCut(dir, cut)))
        {
            total += Files.size(dir.resolve(name));
        }
        return total;
    }

    /** Runs a ring on one rank with a global cut every {@value #EVERY} tasks; returns its newest complete cut. */
    private static long checkpointedRun(final Path rankDir) throws Exception
    {
        final Path root = rankDir.resolveSibling("job");
        try (InProcessFabric fabric = new InProcessFabric(1, LIMIT))
        {
            final GlobalCheckpoints global = GlobalCheckpoints.everyTasks(EVERY, root, Cut.LOCAL, 0);
            final SpillwayConfig config = Spillway.builder().storeDir(root.resolve("spill")).store(StoreKind.DIRECT)
                .dramBudget(64L * BYTES).workers(2).storeSizing(64, BYTES)
                .checkpoints(Checkpoints.store(rankDir).keep(3).open(), global);
            try (DistributedSpillway ds = new DistributedSpillway(fabric.transport(0), config))
            {
                final Data[] tiles = new Data[TILES];
                for (int i = 0; i < TILES; i++)
                {
                    tiles[i] = ds.data("tile " + i, BYTES, 0);
                }
                RingSweeps.submit(ds, tiles, BYTES, 5, name -> { }, (name, tile) -> { });
                ds.awaitAll();
            }
        }
        final List<Long> cuts = GenerationFiles.completeCuts(rankDir, Long.MAX_VALUE);
        assertTrue(cuts.size() >= 2, "cuts held: " + cuts);
        return cuts.get(cuts.size() - 1);
    }
}
