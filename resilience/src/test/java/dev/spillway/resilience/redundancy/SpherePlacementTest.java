package dev.spillway.resilience.redundancy;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Replicas of a sphere go to distinct hosts whenever the slots allow it, and the placement says when not. */
class SpherePlacementTest
{
    /** @return {@code n} slots dealt to {@code hosts} hosts in blocks. */
    private static List<String> blocks(final long n, final int hosts)
    {
        final List<String> map = new ArrayList<>();
        for (long s = 0; s < n; s++)
        {
            map.add("h" + s * hosts / n);
        }
        return map;
    }

    /**
     * Gale and Ryser: spheres of sizes s and hosts of capacities c (equal sums) fit with no sphere twice on a host
     * iff for every k the k largest spheres need at most {@code Σ_h min(c_h, k)} slots.
     */
    private static boolean distinctHostsPossible(final RedundancyPlan plan, final List<String> hostOfSlot)
    {
        final List<Integer> sizes = new ArrayList<>();
        for (int rank = 0; rank < plan.ranks(); rank++)
        {
            sizes.add(plan.replicasOf(rank));
        }
        sizes.sort(Collections.reverseOrder());
        final Map<String, Integer> capacity = new HashMap<>();
        hostOfSlot.forEach(h -> capacity.merge(h, 1, Integer::sum));
        long need = 0;
        for (int k = 1; k <= sizes.size(); k++)
        {
            need += sizes.get(k - 1);
            final int kk = k;
            if (need > capacity.values().stream().mapToLong(c -> Math.min(c, kk)).sum())
            {
                return false;
            }
        }
        return true;
    }

    @Test
    void spheresGetDistinctHostsExactlyWhenGaleRyserAllowsIt()
    {
        final SplittableRandom random = new SplittableRandom(2);
        int possible = 0;
        int impossible = 0;
        for (int c = 0; c < 3000; c++)
        {
            final int n = random.nextInt(1, 13);
            final RedundancyPlan plan = RedundancyPlan.of(n, new RedundancyDegree(BigDecimal.valueOf(
                random.nextLong(100, 401), 2)));
            final int hosts = random.nextInt(1, 6);
            final List<String> map = new ArrayList<>();
            for (long s = 0; s < plan.processes(); s++)
            {
                map.add("h" + random.nextInt(hosts));
            }
            final SpherePlacement p = plan.place(map);
            final Set<Integer> slots = new HashSet<>();
            int sharing = 0;
            for (int rank = 0; rank < n; rank++)
            {
                assertEquals(plan.replicasOf(rank), p.slotsOf(rank).size());
                final Set<String> onHosts = new HashSet<>();
                for (final int slot : p.slotsOf(rank))
                {
                    assertTrue(slots.add(slot), "slot " + slot + " used twice");
                    assertEquals(map.get(slot), p.hostOf(slot));
                    onHosts.add(map.get(slot));
                }
                sharing += onHosts.size() < p.slotsOf(rank).size() ? 1 : 0;
            }
            assertEquals(plan.processes(), slots.size());
            assertEquals(sharing, p.spheresSharingAHost(), map::toString);
            if (distinctHostsPossible(plan, map))
            {
                possible++;
                assertEquals(0, sharing, () -> "r " + plan.degree() + ", slots on " + map);
                assertEquals(List.of(), p.warnings());
            }
            else
            {
                impossible++;
                assertTrue(sharing > 0 && !p.warnings().isEmpty(), map::toString);
            }
        }
        assertTrue(possible > 500 && impossible > 500, possible + " possible, " + impossible + " impossible");
    }

    @Test
    void twoHostsInBlocksPairTheirSlotsAcross()
    {
        final SpherePlacement p = RedundancyPlan.of(4, RedundancyDegree.parse("2")).place(blocks(8, 2));
        for (int rank = 0; rank < 4; rank++)
        {
            assertEquals(List.of(rank, rank + 4), p.slotsOf(rank));
        }
    }

    @Test
    void oneHostSaysItsSpheresDoNotSurviveTheHost()
    {
        final RedundancyPlan plan = RedundancyPlan.of(4, RedundancyDegree.parse("1.5"));
        final SpherePlacement p = plan.place(Collections.nCopies(6, "h0"));
        assertEquals(2, p.spheresSharingAHost());
        assertEquals(List.of("replicas of 2 spheres share host h0: they survive a process's death there, not the " +
            "host's"), p.warnings());
        assertThrows(IllegalArgumentException.class, () -> plan.place(Collections.nCopies(5, "h0")));
    }
}
