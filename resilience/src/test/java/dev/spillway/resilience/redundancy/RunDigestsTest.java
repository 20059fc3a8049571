package dev.spillway.resilience.redundancy;

import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.SpillwayConfig;
import dev.spillway.checkpoint.Cut;
import dev.spillway.io.StoreKind;
import dev.spillway.ranks.DistributedSpillway;
import dev.spillway.ranks.GlobalCheckpoints;
import dev.spillway.rdma.InProcessFabric;
import dev.spillway.rdma.Transport;
import dev.spillway.resilience.Checkpoints;
import dev.spillway.resilience.RingSweeps;
import dev.spillway.resilience.store.GenerationDigest;
import dev.spillway.resilience.store.GenerationFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The premise of comparing replicas by generation digests (design §D.2, §D.5): runs of one program with other worker
 * counts and DRAM budgets (so other schedules and spills) commit equal digests at every cut, while one flipped bit in
 * a live object shows at the first cut after it, naming the object, and the vote acts on it.
 */
class RunDigestsTest
{
    private static final int RANKS = 2;
    private static final int TILES = 8;
    private static final int BYTES = 4096;
    private static final int SWEEPS = 6;
    private static final int EVERY = 8;
    private static final Duration LIMIT = Duration.ofSeconds(300);
    private static final String FLIPPED = "update 3 sweep 2";
    private static final long FLIPPED_AT = TILES * (2L + 1) + 3;

    @TempDir
    Path dir;

    @Test
    void runsWithOtherWorkersAndBudgetsCommitEqualDigestsAtEveryCut() throws Exception
    {
        final Path one = run("one", 1, 64, false).root;
        final Run spills = run("spilling", 2, 4, false);
        final Path spilling = spills.root;
        assertTrue(spills.nvmRead > 0, "the small budget must make the run read spilled tiles back");
        final Path wide = run("wide", 2, 64, false).root;
        for (int rank = 0; rank < RANKS; rank++)
        {
            final List<Long> cuts = commonCuts(rank, one, spilling, wide);
            assertTrue(cuts.size() >= 3, "rank " + rank + ": too few cuts committed by all three runs: " + cuts);
            for (final long cut : cuts)
            {
                final Map<Integer, GenerationDigest> digests = Map.of(0, digest(one, rank, cut), 1,
                    digest(spilling, rank, cut), 2, digest(wide, rank, cut));
                final DigestVote.Verdict v = DigestVote.decide(rank, digests);
                assertEquals(DigestVote.Kind.VERIFIED, v.kind(), v.reason() + ": differing objects " +
                    digests.get(0).differingObjects(digests.get(1)) + " / " +
                    digests.get(0).differingObjects(digests.get(2)));
            }
        }
    }

    @Test
    void aFlippedBitShowsAtTheFirstCutAfterItAndTheVoteNamesIt() throws Exception
    {
        final Path clean = run("clean", 2, 64, false).root;
        final Path again = run("again", 1, 4, false).root;
        final Path flipped = run("flipped", 2, 64, true).root;
        final long first = (FLIPPED_AT / EVERY + 1) * EVERY;
        final List<Long> cuts = commonCuts(0, clean, again, flipped);
        assertTrue(cuts.contains(first), "the cut at " + first + " must be committed by every run: " + cuts);
        for (final long cut : cuts)
        {
            final boolean equal = digest(clean, 0, cut).matches(digest(flipped, 0, cut).sha256());
            assertEquals(cut < first, equal, "rank 0, cut " + cut + ": the bit flipped in the task at global index " +
                FLIPPED_AT);
        }
        final GenerationDigest cleanAtFirst = digest(clean, 0, first);
        assertTrue(cleanAtFirst.differingObjects(digest(flipped, 0, first)).contains("tile 3"),
            cleanAtFirst.differingObjects(digest(flipped, 0, first)).toString());

        final DigestVote.Verdict two = DigestVote.decide(0, Map.of(0, cleanAtFirst, 1, digest(flipped, 0, first)));
        assertEquals(DigestVote.Kind.ROLL_BACK, two.kind(), two.reason());
        final DigestVote.Verdict three = DigestVote.decide(0, Map.of(0, cleanAtFirst, 1, digest(flipped, 0, first),
            2, digest(again, 0, first)));
        assertEquals(DigestVote.Kind.OUTVOTED, three.kind(), three.reason());
        assertEquals(Set.of(1), three.minority());
        assertTrue(three.objects().get(1).contains("tile 3"), three.reason());
    }

    private static GenerationDigest digest(final Path run, final int rank, final long cut) throws Exception
    {
        return GenerationFiles.digest(run.resolve("rank-" + rank), cut);
    }

    private static List<Long> commonCuts(final int rank, final Path... runs) throws Exception
    {
        final List<Long> cuts = new ArrayList<>(GenerationFiles.completeCuts(runs[0].resolve("rank-" + rank),
            Long.MAX_VALUE));
        for (final Path run : runs)
        {
            cuts.retainAll(GenerationFiles.completeCuts(run.resolve("rank-" + rank), Long.MAX_VALUE));
        }
        assertFalse(cuts.isEmpty(), "rank " + rank + ": no cut committed by every run");
        return cuts;
    }

    /** A run's checkpoint directory and the bytes its ranks read back from their stores. */
    private record Run(Path root, long nvmRead)
    {
    }

    /** Runs the program on every rank with {@code workers} and a budget of {@code budgetTiles} tiles per rank. */
    private Run run(final String name, final int workers, final int budgetTiles, final boolean flip)
        throws Exception
    {
        final Path root = dir.resolve(name);
        try (InProcessFabric fabric = new InProcessFabric(RANKS, LIMIT))
        {
            final ExecutorService pool = Executors.newFixedThreadPool(RANKS);
            try
            {
                final List<Future<Long>> ranks = new ArrayList<>();
                for (int r = 0; r < RANKS; r++)
                {
                    final Transport transport = fabric.transport(r);
                    ranks.add(pool.submit(() -> runRank(transport, root, workers, budgetTiles, flip)));
                }
                long read = 0;
                for (final Future<Long> f : ranks)
                {
                    read += f.get(2 * LIMIT.toSeconds(), TimeUnit.SECONDS);
                }
                return new Run(root, read);
            }
            finally
            {
                pool.shutdownNow();
            }
        }
    }

    /** @return the bytes this rank read back from its store. */
    private static long runRank(final Transport transport, final Path root, final int workers,
        final int budgetTiles, final boolean flip) throws Exception
    {
        final int rank = transport.rank();
        final SpillwayConfig config = Spillway.builder().storeDir(root.resolve("spill-" + rank))
            .store(StoreKind.DIRECT).dramBudget((long)budgetTiles * BYTES).workers(workers).storeSizing(256, BYTES)
            .checkpoints(Checkpoints.store(root.resolve("rank-" + rank)).keep(64).open(),
                GlobalCheckpoints.everyTasks(EVERY, root, Cut.LOCAL, 0));
        try (DistributedSpillway ds = new DistributedSpillway(transport, config))
        {
            final Data[] tiles = new Data[TILES];
            for (int i = 0; i < TILES; i++)
            {
                tiles[i] = ds.data("tile " + i, BYTES, i * RANKS / TILES);
            }
            RingSweeps.submit(ds, tiles, BYTES, SWEEPS, name -> { }, (name, tile) ->
            {
                if (flip && name.equals(FLIPPED))
                {
                    tile.put(1234, (byte)(tile.get(1234) ^ 0x10));
                }
            });
            ds.awaitAll();
            return ds.local().stats().nvmBytesRead();
        }
    }
}
