package dev.spillway.resilience.redundancy;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;

/**
 * How many physical processes each of N logical ranks gets at redundancy degree r (seed 004 eqs. 5-8, exact):
 * <pre>
 *   N_⌊r⌋ = ⌊(⌈r⌉ − r)·N⌋   ranks get ⌊r⌋ replicas   (eq. 6)
 *   N_⌈r⌉ = N − N_⌊r⌋       ranks get ⌈r⌉ replicas   (eqs. 5, 7)
 *   N_total = N_⌈r⌉·⌈r⌉ + N_⌊r⌋·⌊r⌋ = ⌈r·N⌉            (eq. 8)
 * </pre>
 * The paper says {@code N_total ≤ N·r}; with eq. 6's floor it is {@code ⌈r·N⌉}, so at least {@code N·r} (r = 1.5,
 * N = 3 gives 5). The ranks with ⌈r⌉ replicas are spread evenly from rank 0: rank i has them when
 * {@code i·N_⌈r⌉ mod N < N_⌈r⌉}, which gives the even ranks at 1.5x, as in the paper's experiments, and every fourth
 * rank at 1.25x.
 */
public final class RedundancyPlan
{
    private final int ranks;
    private final RedundancyDegree degree;
    private final int floorRanks;

    private RedundancyPlan(final int ranks, final RedundancyDegree degree, final int floorRanks)
    {
        this.ranks = ranks;
        this.degree = degree;
        this.floorRanks = floorRanks;
    }

    /**
     * @param ranks  N, logical ranks, at least 1.
     * @param degree r.
     */
    public static RedundancyPlan of(final int ranks, final RedundancyDegree degree)
    {
        if (ranks < 1)
        {
            throw new IllegalArgumentException("a plan needs at least one rank, got " + ranks);
        }
        final BigDecimal gap = BigDecimal.valueOf(degree.ceil()).subtract(degree.value());
        final int floorRanks = gap.multiply(BigDecimal.valueOf(ranks)).setScale(0, RoundingMode.FLOOR).intValueExact();
        return new RedundancyPlan(ranks, degree, floorRanks);
    }

    /** @return N, the logical ranks. */
    public int ranks()
    {
        return ranks;
    }

    /** @return r. */
    public RedundancyDegree degree()
    {
        return degree;
    }

    /** @return {@code N_⌊r⌋}, the ranks with ⌊r⌋ replicas (eq. 6); 0 for an integer r. */
    public int floorRanks()
    {
        return floorRanks;
    }

    /** @return {@code N_⌈r⌉}, the ranks with ⌈r⌉ replicas (eq. 7). */
    public int ceilRanks()
    {
        return ranks - floorRanks;
    }

    /** @return {@code N_total}, the physical processes (eq. 8). */
    public long processes()
    {
        return (long)ceilRanks() * degree.ceil() + (long)floorRanks * degree.floor();
    }

    /** @return whether {@code rank} is one of the evenly spread ranks with ⌈r⌉ replicas. */
    public boolean hasCeilReplicas(final int rank)
    {
        if (rank < 0 || rank >= ranks)
        {
            throw new IllegalArgumentException("rank " + rank + " of " + ranks);
        }
        return (long)rank * ceilRanks() % ranks < ceilRanks();
    }

    /** @return the physical processes of {@code rank}'s sphere: ⌈r⌉ or ⌊r⌋. */
    public int replicasOf(final int rank)
    {
        return hasCeilReplicas(rank) ? degree.ceil() : degree.floor();
    }

    /**
     * Places every sphere on the process slots, on distinct hosts when it can (see {@link SpherePlacement}).
     *
     * @param hostOfSlot the host of each of the {@link #processes()} process slots, by slot (physical rank).
     */
    public SpherePlacement place(final List<String> hostOfSlot)
    {
        if (hostOfSlot.size() != processes())
        {
            throw new IllegalArgumentException(processes() + " processes need as many slots, got " +
                hostOfSlot.size());
        }
        return SpherePlacement.of(this, hostOfSlot);
    }
}
