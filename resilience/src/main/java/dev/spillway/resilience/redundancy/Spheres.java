package dev.spillway.resilience.redundancy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The live replicas of every logical rank (design §D.2): every process keeps the same table, built from the
 * {@link SpherePlacement} and updated from the loss events the control plane relays to all. A replica's loss needs
 * no rollback while its sphere has a live member; a sphere with none left is dead, and the job falls back to the
 * global restart. Thread-safe.
 */
public final class Spheres
{
    private final int[] rankOfSlot;
    private final List<List<Integer>> live = new ArrayList<>();

    /** What a loss did to its sphere. */
    public enum Loss
    {
        /** The slot was not live: a repeated event. */
        ALREADY_LOST,
        /** The sphere runs on with its other replicas. */
        TAKEN_OVER,
        /** The sphere has no live replica left: the global restart. */
        SPHERE_DEAD
    }

    /** Every slot of {@code placement} starts live. */
    public Spheres(final SpherePlacement placement)
    {
        final int ranks = placement.ranks();
        int slots = 0;
        for (int rank = 0; rank < ranks; rank++)
        {
            slots += placement.slotsOf(rank).size();
        }
        rankOfSlot = new int[slots];
        Arrays.fill(rankOfSlot, -1);
        for (int rank = 0; rank < ranks; rank++)
        {
            final List<Integer> replicas = new ArrayList<>(placement.slotsOf(rank));
            replicas.forEach(slot -> rankOfSlot[slot] = live.size());
            live.add(replicas);
        }
    }

    /** @return the logical rank {@code slot} runs. */
    public int rankOf(final int slot)
    {
        return rankOfSlot[slot];
    }

    /** @return {@code rank}'s live replicas (process slots), in placement order; empty once its sphere died. */
    public synchronized List<Integer> live(final int rank)
    {
        return List.copyOf(live.get(rank));
    }

    /** Removes {@code slot} from its sphere. */
    public synchronized Loss lost(final int slot)
    {
        final List<Integer> replicas = live.get(rankOfSlot[slot]);
        if (!replicas.remove(Integer.valueOf(slot)))
        {
            return Loss.ALREADY_LOST;
        }
        return replicas.isEmpty() ? Loss.SPHERE_DEAD : Loss.TAKEN_OVER;
    }

    /** @return {@code sdc_coverage}: the fraction of logical ranks with two live replicas or more. */
    public synchronized double sdcCoverage()
    {
        return (double)live.stream().filter(replicas -> replicas.size() >= 2).count() / live.size();
    }
}
