package dev.spillway.resilience.buddy;

import dev.spillway.resilience.buddy.BuddyPlacement.Kind;
import dev.spillway.resilience.buddy.BuddyPlacement.Pair;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BuddyPlacementTest
{
    private static List<String> oneHost(final int n)
    {
        return Collections.nCopies(n, "h0");
    }

    /** @return {@code n} ranks dealt to {@code hosts} hosts in blocks, as Slurm's default block distribution. */
    private static List<String> blocks(final int n, final int hosts)
    {
        final List<String> map = new ArrayList<>();
        for (int r = 0; r < n; r++)
        {
            map.add("h" + r * hosts / n);
        }
        return map;
    }

    private static long sameHostPairs(final BuddyPlacement p)
    {
        return p.pairs().stream().filter(q -> p.hostOf(q.rank()).equals(p.hostOf(q.buddy()))).count();
    }

    private static void assertMutual(final BuddyPlacement p)
    {
        for (int r = 0; r < p.ranks(); r++)
        {
            assertTrue(p.buddyOf(r) != r && p.buddyOf(p.buddyOf(r)) == r, "rank " + r);
        }
        assertEquals(p.ranks() / 2, p.pairs().size());
    }

    private static void assertOneCycle(final BuddyPlacement p)
    {
        int r = 0;
        for (int step = 1; step < p.ranks(); step++)
        {
            r = p.buddyOf(r);
            assertTrue(r != 0, "the ring closes after " + step + " of " + p.ranks() + " ranks");
        }
        assertEquals(0, p.buddyOf(r), "the ring closes");
    }

    @Test
    void mutualPairsGoAcrossHosts()
    {
        final BuddyPlacement p = BuddyPlacement.forHosts(blocks(8, 2));
        assertEquals(Kind.MUTUAL, p.kind());
        assertEquals(List.of(new Pair(0, 4), new Pair(1, 5), new Pair(2, 6), new Pair(3, 7)), p.pairs());
        assertMutual(p);
        assertEquals(List.of(), p.warnings());
        final BuddyPlacement dealt = BuddyPlacement.forHosts(List.of("a", "b", "a", "b", "a", "b"));
        for (int r = 0; r < 6; r++)
        {
            assertEquals(r ^ 1, dealt.buddyOf(r), "ranks dealt in turn pair as r xor 1");
        }
        assertEquals(List.of(), dealt.warnings());
    }

    @Test
    void mutualPairsOnOneHostAreRXorOneAndSaySo()
    {
        final BuddyPlacement p = BuddyPlacement.forHosts(oneHost(6));
        for (int r = 0; r < 6; r++)
        {
            assertEquals(r ^ 1, p.buddyOf(r));
        }
        assertEquals(List.of("buddies share host h0: this protects against a process's death, not the host's"),
            p.warnings());
    }

    @Test
    void aHostWithMoreThanHalfTheRanksSharesOnlyWhatItMust()
    {
        final BuddyPlacement p = BuddyPlacement.forHosts(List.of("a", "a", "a", "b"));
        assertEquals(List.of(new Pair(0, 3), new Pair(1, 2)), p.pairs());
        assertEquals(List.of("buddies share host a: this protects against a process's death, not the host's"),
            p.warnings());
    }

    @Test
    void aRingGoesAcrossHosts()
    {
        final BuddyPlacement p = BuddyPlacement.of(Kind.RING, blocks(6, 3));
        assertOneCycle(p);
        assertEquals(6, p.pairs().size());
        assertEquals(0, sameHostPairs(p));
        assertEquals(List.of(), p.warnings());
        for (int r = 0; r < 6; r++)
        {
            assertTrue(!p.hostOf(r).equals(p.hostOf(p.buddyOf(r))), "rank " + r + " → " + p.buddyOf(r));
        }
    }

    @Test
    void aRingOnOneHostIsTheNextRank()
    {
        final BuddyPlacement p = BuddyPlacement.of(Kind.RING, oneHost(5));
        for (int r = 0; r < 5; r++)
        {
            assertEquals((r + 1) % 5, p.buddyOf(r));
        }
        assertEquals(1, p.warnings().size());
        final BuddyPlacement two = BuddyPlacement.of(Kind.RING, blocks(2, 2));
        assertEquals(List.of(new Pair(0, 1)), two.pairs(), "a ring of two is one pair");
    }

    @Test
    void anOddNumberOfRanksGetsARing()
    {
        final BuddyPlacement p = BuddyPlacement.forHosts(blocks(7, 3));
        assertEquals(Kind.RING, p.kind());
        assertOneCycle(p);
        assertEquals(7, p.pairs().size());
        assertEquals(0, sameHostPairs(p), "7 ranks on 3 hosts (3, 2, 2) fit a ring without neighbours on one host");
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> BuddyPlacement.of(Kind.MUTUAL, blocks(7, 3)));
        assertTrue(e.getMessage().contains("even number of ranks, got 7"), e::getMessage);
        assertThrows(IllegalArgumentException.class, () -> BuddyPlacement.forHosts(oneHost(1)));
    }

    /** Random host maps: as few buddies share a host as the largest host's rank count forces. */
    @Test
    void placementsShareHostsOnlyWhereTheyMust()
    {
        final SplittableRandom random = new SplittableRandom(15);
        for (int trial = 0; trial < 2000; trial++)
        {
            final int n = 3 + random.nextInt(38);
            final int hosts = 1 + random.nextInt(6);
            final List<String> map = new ArrayList<>();
            final int[] count = new int[hosts];
            for (int r = 0; r < n; r++)
            {
                final int h = random.nextInt(hosts);
                count[h]++;
                map.add("h" + h);
            }
            final int most = java.util.Arrays.stream(count).max().orElseThrow();
            final BuddyPlacement ring = BuddyPlacement.of(Kind.RING, map);
            assertOneCycle(ring);
            assertEquals(Math.max(0, 2 * most - n), sameHostPairs(ring), () -> "ring on " + map);
            if (n % 2 == 0)
            {
                final BuddyPlacement mutual = BuddyPlacement.of(Kind.MUTUAL, map);
                assertMutual(mutual);
                assertEquals(Math.max(0, most - n / 2), sameHostPairs(mutual), () -> "mutual on " + map);
            }
        }
    }
}
