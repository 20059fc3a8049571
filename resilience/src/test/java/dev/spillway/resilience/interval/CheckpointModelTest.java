package dev.spillway.resilience.interval;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The model reproduces the thesis's numbers (seed-003 note, section 6.2, items 1-3). */
class CheckpointModelTest
{
    @Test
    void blockingOptimumForWave2dIsThe372sOfTheThesisNotDaly()
    {
        for (double restart = 0; restart <= 70; restart += 5)
        {
            final double tau = CheckpointModel.optimalBlocking(52, restart, 1800);
            assertTrue(tau >= 372 && tau <= 381, "R " + restart + ": τ " + tau);
            final double daly = CheckpointModel.daly(52, 1800, restart);
            assertTrue(daly - tau > 40, "R " + restart + ": Daly " + daly + " vs numeric " + tau);
        }
        assertEquals(372, CheckpointModel.optimalBlocking(52, 70, 1800), 0.5);
        assertEquals(432.7, CheckpointModel.daly(52, 1800, 0), 0.1);
    }

    @Test
    void theNumericOptimumIsTheMinimumOfEquation39()
    {
        final double tau = CheckpointModel.optimalBlocking(52, 30, 1800);
        final double best = CheckpointModel.blocking(tau, 52, 30, 1800);
        for (double other = 100; other < 1700; other += 7)
        {
            assertTrue(CheckpointModel.blocking(other, 52, 30, 1800) >= best, "τ " + other);
        }
        assertTrue(CheckpointModel.blocking(tau * 1.01, 52, 30, 1800) > best);
        assertTrue(CheckpointModel.blocking(tau * 0.99, 52, 30, 1800) > best);
    }

    @Test
    void table32BenefitFallsAsCommunicationGrows()
    {
        for (final double delta : new double[] {0.01, 0.1, 0.5, 1.0})
        {
            final double case1 = CheckpointModel.benefit(delta, 6.6, 0.6, 6.5, 0, 300);
            final double case2 = CheckpointModel.benefit(delta, 13.5, 0.8, 6.5, 0, 300);
            final double case3 = CheckpointModel.benefit(delta, 17.3, 1.5, 6.5, 0, 300);
            assertTrue(case1 > case2 && case2 > case3 && case3 > 0,
                "δ " + delta + ": " + case1 + ", " + case2 + ", " + case3);
        }
        assertTrue(CheckpointModel.benefit(0.1, 17.3, 1.5, 6.5, 0, 300) > 0.05, "case 3 > 5% with a small δ");
    }

    @Test
    void benefitGrowsAsFailuresGetMoreFrequent()
    {
        for (final double[] split : new double[][] {{5, 5}, {8, 2}, {2, 8}})
        {
            final double often = CheckpointModel.benefit(split[0], 50, split[1], 52, 0, 300);
            final double rarely = CheckpointModel.benefit(split[0], 50, split[1], 52, 0, 1800);
            assertTrue(often > rarely, "δ " + split[0] + ", φ " + split[1] + ": " + often + " vs " + rarely);
            assertTrue(often > 0.15 && often < 0.25, "M 300: " + often);
            assertTrue(rarely > 0.09 && rarely < 0.13, "M 1800: " + rarely);
        }
    }

    @Test
    void semiBlockingWithoutBackgroundWorkIsTheBlockingModel()
    {
        for (double tau = 10; tau < 1000; tau += 37)
        {
            assertEquals(CheckpointModel.blocking(tau, 3, 7, 2000), CheckpointModel.semiBlocking(tau, 3, 0, 0, 7, 2000),
                1e-12);
        }
    }

    @Test
    void intervalsOutsideTheirBoundsCostForever()
    {
        assertEquals(Double.POSITIVE_INFINITY, CheckpointModel.semiBlocking(5, 1, 6, 0.5, 0, 100));
        assertEquals(Double.POSITIVE_INFINITY, CheckpointModel.semiBlocking(100, 1, 6, 0.5, 0, 100));
        assertEquals(Double.POSITIVE_INFINITY, CheckpointModel.blocking(0, 1, 0, 100));
        assertEquals(Double.POSITIVE_INFINITY, CheckpointModel.blocking(99, 1, 60, 100), "the run never finishes");
        final double tau = CheckpointModel.optimalSemiBlocking(0.1, 30, 1, 0, 300);
        assertTrue(tau > 30 && tau < 300, "τ " + tau);
        assertTrue(Double.isNaN(CheckpointModel.optimalSemiBlocking(0.1, 400, 1, 0, 300)), "θ > M leaves no interval");
    }

    @Test
    void youngIsDalyWithoutRestart()
    {
        assertEquals(CheckpointModel.daly(0.5, 3600, 0), CheckpointModel.young(0.5, 3600), 1e-12);
        assertEquals(60, CheckpointModel.young(0.5, 3600), 1e-9);
    }

    /** Seed 000 §6.1, the vectors of the seed-000 note §3.2 (and design §B.4), to 6 significant digits. */
    @Test
    void dalyHigherOrderGivesTheSeed000Vectors()
    {
        final double[][] deltaMtbfTau = {{10, 86_400, 1307.88}, {60, 3600, 617.876}, {1, 100, 13.4833},
            {300, 100, 100}};
        for (final double[] v : deltaMtbfTau)
        {
            final double tau = CheckpointModel.dalyHigherOrder(v[0], v[1]);
            assertEquals(v[2], tau, v[2] * 5e-6, "δ " + v[0] + ", M " + v[1]);
        }
        assertEquals(1307.876, CheckpointModel.dalyHigherOrder(10, 86_400), 5e-4);
        assertEquals(200, CheckpointModel.dalyHigherOrder(400, 200), "δ = 2M is past the formula: M");
        assertTrue(CheckpointModel.dalyHigherOrder(10, 86_400) < CheckpointModel.young(10, 86_400),
            "the correction is below Young's sqrt(2δM) = 1314.5 s");
    }
}
