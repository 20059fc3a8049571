package dev.spillway.resilience.redundancy;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Losses shrink spheres; a sphere dies with its last replica; coverage counts ranks with two live replicas. */
class SpheresTest
{
    private static Spheres spheres(final int ranks, final String r, final int hosts)
    {
        final RedundancyPlan plan = RedundancyPlan.of(ranks, RedundancyDegree.parse(r));
        final List<String> hostOfSlot = new ArrayList<>();
        for (long s = 0; s < plan.processes(); s++)
        {
            hostOfSlot.add("h" + s % hosts);
        }
        return new Spheres(plan.place(hostOfSlot));
    }

    @Test
    void at1point5TheEvenRanksStartCoveredAndTakeOverUntilTheirLastReplica()
    {
        final Spheres s = spheres(4, "1.5", 3);
        assertEquals(0.5, s.sdcCoverage(), "ranks 0 and 2 have two replicas");
        final List<Integer> zero = s.live(0);
        assertEquals(2, zero.size());
        zero.forEach(slot -> assertEquals(0, s.rankOf(slot)));
        assertEquals(Spheres.Loss.TAKEN_OVER, s.lost(zero.get(1)));
        assertEquals(Spheres.Loss.ALREADY_LOST, s.lost(zero.get(1)));
        assertEquals(List.of(zero.get(0)), s.live(0));
        assertEquals(0.25, s.sdcCoverage());
        assertEquals(Spheres.Loss.SPHERE_DEAD, s.lost(s.live(1).get(0)), "rank 1 has a single replica");
        assertEquals(List.of(), s.live(1));
    }

    /** Against a recount from the live lists, over seeded random loss orders at several degrees. */
    @Test
    void coverageAndDeathsAgreeWithARecountAfterEveryLoss()
    {
        final SplittableRandom random = new SplittableRandom(16);
        for (final String r : new String[] {"1", "1.25", "2", "2.5", "3"})
        {
            for (int trial = 0; trial < 20; trial++)
            {
                final int ranks = 1 + random.nextInt(12);
                final Spheres s = spheres(ranks, r, 1 + random.nextInt(4));
                final List<Integer> slots = new ArrayList<>();
                for (int rank = 0; rank < ranks; rank++)
                {
                    slots.addAll(s.live(rank));
                }
                Collections.shuffle(slots, new java.util.Random(random.nextLong()));
                for (final int slot : slots)
                {
                    final int rank = s.rankOf(slot);
                    final int before = s.live(rank).size();
                    final Spheres.Loss loss = s.lost(slot);
                    assertEquals(before == 1 ? Spheres.Loss.SPHERE_DEAD : Spheres.Loss.TAKEN_OVER, loss,
                        "r " + r + ", slot " + slot);
                    assertTrue(!s.live(rank).contains(slot));
                    int covered = 0;
                    for (int k = 0; k < ranks; k++)
                    {
                        covered += s.live(k).size() >= 2 ? 1 : 0;
                    }
                    assertEquals((double)covered / ranks, s.sdcCoverage(), "r " + r + " after losing " + slot);
                }
            }
        }
    }
}
