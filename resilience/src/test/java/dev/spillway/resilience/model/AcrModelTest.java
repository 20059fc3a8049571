package dev.spillway.resilience.model;

import dev.spillway.resilience.interval.CheckpointModel;
import dev.spillway.resilience.model.AcrModel.Optimum;
import dev.spillway.resilience.model.AcrModel.Scheme;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ACR's model (seed 003 §4.5) against Fig. 4.7a; the thesis prints neither W nor R, nor how M_S scales. */
class AcrModelTest
{
    private static final double YEAR_S = 365 * 86_400.0;
    private static final int SOCKETS = 256 * 1024;

    /** Fig. 4.7a's setting: 50 years and 100 FIT per socket, S sockets per replica, R_H = R_S = δ, W = 120 h. */
    private static AcrModel fig47(final double checkpoint)
    {
        return new AcrModel(120 * 3600.0, checkpoint, checkpoint, checkpoint, 50 * YEAR_S / SOCKETS,
            1e9 * 3600 / (100.0 * SOCKETS));
    }

    @Test
    void fig47aAt256KSocketsPerReplicaWith50YearsAnd100FitPerSocketRestartEqualsCheckpoint()
    {
        final AcrModel large = fig47(180);
        final double strong = large.optimum(Scheme.STRONG).utilisation();
        final double medium = large.optimum(Scheme.MEDIUM).utilisation();
        final double weak = large.optimum(Scheme.WEAK).utilisation();
        assertEquals(0.37, strong, 0.015, "the thesis: strong falls to 37 %");
        assertTrue(medium >= 0.43 && medium <= 0.45, "the thesis: medium above 43 %, got " + medium);
        assertTrue(weak >= 0.43 && weak <= 0.45, "the thesis: weak above 43 %, got " + weak);
        assertTrue(strong < medium && Math.abs(medium - weak) < 0.005, strong + " " + medium + " " + weak);
        final AcrModel small = fig47(15);
        double lowest = 1;
        for (final Scheme s : Scheme.values())
        {
            lowest = Math.min(lowest, small.optimum(s).utilisation());
        }
        assertTrue(lowest >= 0.45, "the thesis: all above 45 % at δ = 15 s, got " + lowest);
        assertEquals(0.367, strong, 5e-4);
        assertEquals(0.435, medium, 5e-4);
        assertEquals(0.463, small.optimum(Scheme.STRONG).utilisation(), 5e-4);
    }

    @Test
    void theOptimumIsTheMinimumOverTheInterval()
    {
        final AcrModel m = fig47(180);
        for (final Scheme s : Scheme.values())
        {
            final Optimum best = m.optimum(s);
            assertEquals(m.work() / (2 * best.totalTime()), best.utilisation(), 1e-15);
            for (double tau = 10; tau < m.work(); tau *= 1.05)
            {
                assertTrue(m.totalTime(s, tau) >= best.totalTime(), s + " τ " + tau);
            }
            assertTrue(m.totalTime(s, best.interval() * 1.02) > best.totalTime(), s.name());
            assertTrue(m.totalTime(s, best.interval() / 1.02) > best.totalTime(), s.name());
        }
    }

    @Test
    void strongWithoutSdcIsThesisChapter3sBlockingModelLessOneCheckpoint()
    {
        final double work = 36_000;
        final AcrModel m = new AcrModel(work, 52, 30, 30, 1800, Double.POSITIVE_INFINITY);
        for (double tau = 100; tau < 1700; tau += 50)
        {
            final double blocking = work * CheckpointModel.blocking(tau, 52, 30, 1800);
            final double free = 1 - (30 + (tau + 52) / 2) / 1800;
            assertEquals(blocking - 52 / free, m.totalTime(Scheme.STRONG, tau), 1e-9 * blocking, "τ " + tau);
        }
        assertEquals(Double.POSITIVE_INFINITY, m.totalTime(Scheme.STRONG, 3600), "a period past M_H never ends");
    }

    @Test
    void weakChargesAHardErrorOnlyWhenASecondFailureFollowsInThePeriod()
    {
        final AcrModel m = new AcrModel(36_000, 10, 5, 5, 1000, 1e6);
        final double tau = 200;
        final double period = tau + 10;
        final double twoFailures = 1 - Math.exp(-period / 1000) * (1 + period / 1000);
        final double sdc = 5 / 1e6 + period / 1e6;
        final double work = 36_000 + (36_000 / tau - 1) * 10;
        assertEquals(work / (1 - 5 / 1000.0 - sdc - twoFailures * period / 2000), m.totalTime(Scheme.WEAK, tau), 1e-6);
        assertEquals(work / (1 - 5 / 1000.0 - sdc - 10 / 1000.0), m.totalTime(Scheme.MEDIUM, tau), 1e-6);
        assertEquals(work / (1 - 5 / 1000.0 - sdc - period / 2000), m.totalTime(Scheme.STRONG, tau), 1e-6);
    }
}
