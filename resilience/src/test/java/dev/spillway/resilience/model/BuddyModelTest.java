package dev.spillway.resilience.model;

import dev.spillway.resilience.buddy.BuddyPlacement;
import dev.spillway.resilience.buddy.BuddyPlacement.Kind;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.spillway.resilience.model.ReliabilityModelTest.assertSixDigits;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The placement-aware variant: the fatal pairs of mutual pairs and of a ring, design §B.4's buddy vectors. */
class BuddyModelTest
{
    private static final int SAMPLES = 200_000;

    /** @return {@code n} ranks, each on a host of its own: a failed element is a failed rank. */
    private static List<String> hostEach(final int n)
    {
        final List<String> hosts = new ArrayList<>();
        for (int r = 0; r < n; r++)
        {
            hosts.add("h" + r);
        }
        return hosts;
    }

    private static boolean lostACopy(final BuddyPlacement p, final boolean[] down)
    {
        for (final BuddyPlacement.Pair pair : p.pairs())
        {
            if (down[pair.rank()] && down[pair.buddy()])
            {
                return true;
            }
        }
        return false;
    }

    private static double given(final BuddyPlacement p, final int failed)
    {
        return ReliabilityModel.catastrophicGiven(p.ranks(), p.hostFatalSets(), failed);
    }

    @Test
    void sixteenRanksAtTwoFailuresAreExactAndTheRingIsTwiceMutualPairs()
    {
        final BuddyPlacement mutual = BuddyPlacement.of(Kind.MUTUAL, hostEach(16));
        final BuddyPlacement ring = BuddyPlacement.of(Kind.RING, hostEach(16));
        assertEquals(new FatalSets(0, 8), mutual.hostFatalSets());
        assertEquals(new FatalSets(0, 16), ring.hostFatalSets());
        assertSixDigits(0.0666667, given(mutual, 2), "mutual pairs, 0.0667");
        assertSixDigits(0.133333, given(ring, 2), "ring, 0.1333");
        assertEquals(FailureSets.exact(16, 2, down -> lostACopy(mutual, down)), given(mutual, 2), 1e-12);
        assertEquals(FailureSets.exact(16, 2, down -> lostACopy(ring, down)), given(ring, 2), 1e-12);
        for (int n = 4; n <= 64; n += 2)
        {
            assertEquals(2 * given(BuddyPlacement.of(Kind.MUTUAL, hostEach(n)), 2),
                given(BuddyPlacement.of(Kind.RING, hostEach(n)), 2), 1e-15, n + " ranks");
        }
        final FailureSets.Estimate mcMutual = FailureSets.monteCarlo(16, 2, SAMPLES, 2, d -> lostACopy(mutual, d));
        final FailureSets.Estimate mcRing = FailureSets.monteCarlo(16, 2, SAMPLES, 2, d -> lostACopy(ring, d));
        assertEquals(given(mutual, 2), mcMutual.p(), 3 * mcMutual.sigma(), "Monte Carlo, mutual");
        assertEquals(given(ring, 2), mcRing.p(), 3 * mcRing.sigma(), "Monte Carlo, ring");
    }

    @Test
    void sixteenRanksFromThreeFailuresAreBoundedAbove()
    {
        final BuddyPlacement mutual = BuddyPlacement.of(Kind.MUTUAL, hostEach(16));
        final BuddyPlacement ring = BuddyPlacement.of(Kind.RING, hostEach(16));
        assertSixDigits(0.2, given(mutual, 3), "mutual, x 3: pairs cannot both fail, so the bound is exact");
        assertSixDigits(0.4, given(ring, 3), "ring, x 3");
        assertSixDigits(0.8, given(ring, 4), "ring, x 4");
        assertEquals(0.2, FailureSets.exact(16, 3, d -> lostACopy(mutual, d)), 1e-12);
        assertEquals(13.0 / 35, FailureSets.exact(16, 3, d -> lostACopy(ring, d)), 1e-12, "1 − 352/560");
        assertEquals(1 - 660.0 / 1820, FailureSets.exact(16, 4, d -> lostACopy(ring, d)), 1e-12, "0.637");
        final FailureSets.Estimate mutual3 = FailureSets.monteCarlo(16, 3, SAMPLES, 3, d -> lostACopy(mutual, d));
        final FailureSets.Estimate ring3 = FailureSets.monteCarlo(16, 3, SAMPLES, 3, d -> lostACopy(ring, d));
        final FailureSets.Estimate ring4 = FailureSets.monteCarlo(16, 4, SAMPLES, 4, d -> lostACopy(ring, d));
        assertEquals(0.2, mutual3.p(), 3 * mutual3.sigma(), "mutual, x 3: equal within 3σ");
        assertEquals(13.0 / 35, ring3.p(), 3 * ring3.sigma(), "the estimator, ring x 3");
        assertEquals(1 - 660.0 / 1820, ring4.p(), 3 * ring4.sigma(), "the estimator, ring x 4");
        assertTrue(given(ring, 3) > ring3.p() + 10 * ring3.sigma(), "ring x 3: the bound is loose, " + ring3);
        assertTrue(given(ring, 4) > ring4.p() + 10 * ring4.sigma(), "ring x 4: the bound is loose, " + ring4);
        for (int x = 5; x <= 16; x++)
        {
            final int failed = x;
            final FailureSets.Estimate mc = FailureSets.monteCarlo(16, x, SAMPLES / 10, x, d -> lostACopy(ring, d));
            assertTrue(given(ring, failed) >= mc.p() - 3 * mc.sigma(), "ring x " + x + ": " + mc);
        }
    }

    @Test
    void ranksSharingAHostMakeItFatalAlone()
    {
        final BuddyPlacement oneHost = BuddyPlacement.forHosts(List.of("a", "a", "a", "a"));
        assertEquals(new FatalSets(1, 0), oneHost.hostFatalSets());
        assertEquals(2, oneHost.pairs().size(), "a process's death is still covered: two fatal rank pairs");
        assertEquals(1.0, ReliabilityModel.catastrophicGiven(1, oneHost.hostFatalSets(), 1));
        final BuddyPlacement lopsided = BuddyPlacement.forHosts(List.of("a", "a", "a", "b"));
        assertEquals(new FatalSets(1, 0), lopsided.hostFatalSets(), "a is fatal alone, so a-b adds nothing");
        assertEquals(0.5, ReliabilityModel.catastrophicGiven(2, lopsided.hostFatalSets(), 1));
        final BuddyPlacement spread = BuddyPlacement.forHosts(List.of("a", "a", "b", "b", "c", "c", "d", "d"));
        assertEquals(new FatalSets(0, 2), spread.hostFatalSets(), "a-b and c-d, each twice");
    }
}
