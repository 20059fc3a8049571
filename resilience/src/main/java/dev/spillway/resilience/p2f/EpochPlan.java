package dev.spillway.resilience.p2f;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * When each rank checkpoints and the epoch it starts in (spec §A.6). Ranks are split into {@code clusters} contiguous
 * blocks; cluster {@code c} starts in epoch {@code 1 + 2c}, so a transfer from a lower cluster to a higher one is
 * received in a later epoch than it was sent in and is logged, and one the other way is a dependency.
 * <ul>
 *   <li>{@link #aligned}: every rank cuts at global submission indices {@code Δ, 2Δ, …}, each when it reaches them.
 *       Both halves of a transfer lie at one global index, so inside a cluster nothing is logged.</li>
 *   <li>{@link #independent}: every rank cuts every {@code Δ} of its own local tasks, each cut moved by a seeded
 *       jitter of up to half an interval: seed 001's uncoordinated "random" checkpoints.</li>
 * </ul>
 */
public final class EpochPlan
{
    private final int ranks;
    private final int clusters;
    private final long interval;
    private final long seed;
    private final boolean aligned;

    private EpochPlan(final int ranks, final int clusters, final long interval, final long seed, final boolean aligned)
    {
        if (clusters < 1 || clusters > ranks)
        {
            throw new IllegalArgumentException("clusters must be 1 to " + ranks + " (the ranks), got " + clusters);
        }
        if (interval < 1)
        {
            throw new IllegalArgumentException("the checkpoint interval must be at least 1, got " + interval);
        }
        this.ranks = ranks;
        this.clusters = clusters;
        this.interval = interval;
        this.seed = seed;
        this.aligned = aligned;
    }

    /**
     * Cuts at global submission indices {@code interval, 2·interval, …} on every rank.
     *
     * @param ranks    how many ranks.
     * @param clusters how many clusters, 1 to {@code ranks}.
     * @param interval submissions between two cuts.
     * @return the plan.
     */
    public static EpochPlan aligned(final int ranks, final int clusters, final long interval)
    {
        return new EpochPlan(ranks, clusters, interval, 0, true);
    }

    /**
     * Cuts every {@code interval} local tasks on each rank, each moved by a jitter drawn from {@code seed}.
     *
     * @param ranks    how many ranks.
     * @param clusters how many clusters, 1 to {@code ranks}.
     * @param interval local tasks between two cuts, before the jitter.
     * @param seed     the jitter's seed.
     * @return the plan.
     */
    public static EpochPlan independent(final int ranks, final int clusters, final long interval, final long seed)
    {
        return new EpochPlan(ranks, clusters, interval, seed, false);
    }

    /** @return the cluster of {@code rank}: contiguous blocks of ranks. */
    public int cluster(final int rank)
    {
        return (int) ((long) rank * clusters / ranks);
    }

    /** @return the epoch {@code rank} starts in. */
    public int initialEpoch(final int rank)
    {
        return 1 + 2 * cluster(rank);
    }

    /**
     * @param rank        a rank.
     * @param globalIndex the global submission index of the event.
     * @param localSeq    its local sequence number on {@code rank}.
     * @return the epoch of that event.
     */
    public int epoch(final int rank, final long globalIndex, final long localSeq)
    {
        return initialEpoch(rank) + (int) (aligned ? globalIndex / interval : cutsAtOrBefore(rank, localSeq));
    }

    /** @return whether every rank cuts at the same global indices. */
    public boolean aligned()
    {
        return aligned;
    }

    /**
     * @param rank        a rank.
     * @param globalIndex the global index of an aligned cut, or a negative value for none (the run's start).
     * @return the epoch {@code rank} is in right after that cut.
     */
    public int epochAfterCut(final int rank, final long globalIndex)
    {
        requireAligned();
        return globalIndex < 0 ? initialEpoch(rank) : epoch(rank, globalIndex, 0);
    }

    /**
     * @param rank  a rank.
     * @param epoch one of its epochs.
     * @return the global index of the aligned cut that opens {@code epoch} on {@code rank}, or -1 for its initial one.
     */
    public long cutOpening(final int rank, final int epoch)
    {
        requireAligned();
        if (epoch < initialEpoch(rank))
        {
            throw new IllegalArgumentException("rank " + rank + " starts in epoch " + initialEpoch(rank) + ", not " +
                epoch);
        }
        return epoch == initialEpoch(rank) ? -1 : (epoch - initialEpoch(rank)) * interval;
    }

    /**
     * @return the epoch {@code target} takes in a transfer {@code source} sends in {@code sendEpoch}: both halves lie
     *         at one global index, so it differs only by the clusters' initial epochs.
     */
    public int alignedReceiveEpoch(final int source, final int target, final int sendEpoch)
    {
        requireAligned();
        return sendEpoch + initialEpoch(target) - initialEpoch(source);
    }

    private void requireAligned()
    {
        if (!aligned)
        {
            throw new IllegalStateException("cuts at global indices need an aligned plan, not " + this);
        }
    }

    private long cutsAtOrBefore(final int rank, final long localSeq)
    {
        long cuts = Math.max(0, localSeq / interval - 1);
        while (cutPosition(rank, cuts + 1) <= localSeq)
        {
            cuts++;
        }
        while (cuts > 0 && cutPosition(rank, cuts) > localSeq)
        {
            cuts--;
        }
        return cuts;
    }

    /** The local position of {@code rank}'s cut number {@code k} (from 1): increasing in {@code k}. */
    private long cutPosition(final int rank, final long k)
    {
        final long jitter = new SplittableRandom(seed ^ (long) rank * 0x9E3779B97F4A7C15L ^ k * 0xC2B2AE3D27D4EB4FL)
            .nextLong(interval) - interval / 2;
        return Math.max(1, k * interval + jitter);
    }

    @Override
    public String toString()
    {
        return (aligned ? "aligned every " + interval + " submissions" : "independent every " + interval
            + " local tasks (seed " + seed + ")") + ", " + clusters + " cluster(s) starting at epochs "
            + Arrays.toString(IntStream.range(0, clusters).map(c -> 1 + 2 * c).toArray());
    }
}
