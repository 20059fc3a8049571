package dev.spillway.resilience.redundancy;

import dev.spillway.resilience.hosts.HostQueues;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which process slot (physical rank) runs each replica of each logical rank's sphere. Spheres are placed in rank
 * order, each replica on the host with the most free slots among those the sphere does not use yet (Gale and
 * Ryser's greedy, which finds distinct hosts for every sphere whenever the slots allow it); a replica that finds no
 * such host shares the fullest host with its partner, and the placement names that host.
 */
public final class SpherePlacement
{
    private final List<String> hostOfSlot;
    private final int[][] slots;
    /** Per host that holds two replicas of some sphere, how many spheres do so, in the order found. */
    private final Map<String, Integer> shared;

    private SpherePlacement(final List<String> hostOfSlot, final int[][] slots, final Map<String, Integer> shared)
    {
        this.hostOfSlot = hostOfSlot;
        this.slots = slots;
        this.shared = shared;
    }

    static SpherePlacement of(final RedundancyPlan plan, final List<String> hostOfSlot)
    {
        final HostQueues queues = new HostQueues(hostOfSlot);
        final int[][] slots = new int[plan.ranks()][];
        final Map<String, Integer> shared = new LinkedHashMap<>();
        for (int rank = 0; rank < plan.ranks(); rank++)
        {
            slots[rank] = new int[plan.replicasOf(rank)];
            final Set<String> used = new HashSet<>();
            String sharedHost = null;
            for (int replica = 0; replica < slots[rank].length; replica++)
            {
                String host = queues.fullestNotIn(used);
                if (host == null)
                {
                    host = queues.fullestNotIn(Set.of());
                    sharedHost = sharedHost == null ? host : sharedHost;
                }
                slots[rank][replica] = queues.take(host);
                used.add(host);
            }
            if (sharedHost != null)
            {
                shared.merge(sharedHost, 1, Integer::sum);
            }
        }
        return new SpherePlacement(List.copyOf(hostOfSlot), slots, shared);
    }

    /** @return N, the logical ranks. */
    public int ranks()
    {
        return slots.length;
    }

    /** @return the slots (physical ranks) of {@code rank}'s replicas, in the order placed. */
    public List<Integer> slotsOf(final int rank)
    {
        final List<Integer> list = new ArrayList<>(slots[rank].length);
        for (final int slot : slots[rank])
        {
            list.add(slot);
        }
        return list;
    }

    /** @return {@code slot}'s host. */
    public String hostOf(final int slot)
    {
        return hostOfSlot.get(slot);
    }

    /** @return the spheres with two replicas or more on one host. */
    public int spheresSharingAHost()
    {
        return shared.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** @return one line per host that holds two replicas of a sphere, saying what that costs. */
    public List<String> warnings()
    {
        final List<String> lines = new ArrayList<>();
        shared.forEach((host, spheres) -> lines.add("replicas of " + spheres + " sphere" + (spheres == 1 ? "" : "s") +
            " share host " + host + ": they survive a process's death there, not the host's"));
        return lines;
    }
}
