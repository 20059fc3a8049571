package dev.spillway.resilience.interval;

import dev.spillway.checkpoint.CheckpointCost;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The fixed and the automatic interval policies. */
class PoliciesTest
{
    private static final long SECOND = 1_000_000_000L;

    private static CheckpointCost cost(final double block, final double total, final double interference)
    {
        return new CheckpointCost((long)(block * SECOND), (long)(total * SECOND), (long)(interference * SECOND),
            1 << 20, 3, 5);
    }

    @Test
    void everyTasksIsDueAfterNTasks()
    {
        final EveryTasks policy = new EveryTasks(500);
        assertFalse(policy.due(499, 100 * SECOND));
        assertTrue(policy.due(500, 0));
        assertTrue(policy.due(501, 0));
        assertEquals("every 500 tasks", policy.describe());
        assertThrows(IllegalArgumentException.class, () -> new EveryTasks(0));
    }

    @Test
    void everySecondsIsDueAfterTheTime()
    {
        final EverySeconds policy = new EverySeconds(2.5);
        assertFalse(policy.due(1_000_000, 2 * SECOND));
        assertTrue(policy.due(1, 2_500_000_000L));
        assertEquals("every 2.5 s", policy.describe());
        assertEquals("every 30 s", new EverySeconds(30).describe());
        assertThrows(IllegalArgumentException.class, () -> new EverySeconds(0));
        assertThrows(IllegalArgumentException.class, () -> new EverySeconds(Double.NaN));
    }

    @Test
    void autoStartsFromYoungWithTheInitialGuess()
    {
        final AutoInterval policy = new AutoInterval(3600, 1);
        final double young = CheckpointModel.young(AutoInterval.INITIAL_DELTA_SECONDS, 3600);
        assertEquals(young, policy.intervalSeconds(), 1e-9);
        assertFalse(policy.due(1000, (long)(young * SECOND) - 1000));
        assertTrue(policy.due(0, (long)(young * SECOND) + 1000));
        assertTrue(policy.describe().startsWith("auto: every 26.8 s"), policy.describe());
        assertTrue(policy.describe().contains("δ guessed"), policy.describe());
    }

    @Test
    void autoFollowsTheMeasuredCostsWithinThetaAndM()
    {
        final AutoInterval policy = new AutoInterval(3600, 1);
        final double initial = policy.intervalSeconds();
        policy.committed(cost(0.5, 3, 0.2));
        final double afterOne = policy.intervalSeconds();
        assertNotEquals(initial, afterOne, 1e-6);
        assertTrue(afterOne > 3 && afterOne < 3600, "τ " + afterOne);
        for (int i = 0; i < 5; i++)
        {
            policy.committed(cost(4, 40, 2));
        }
        final double expensive = policy.intervalSeconds();
        assertTrue(expensive > afterOne, afterOne + " then " + expensive);
        assertTrue(expensive > 40 && expensive < 3600, "τ " + expensive);
        assertFalse(policy.describe().contains("guessed"), policy.describe());
    }

    @Test
    void autoIsClampedAboveAWholeCheckpoint()
    {
        final AutoInterval policy = new AutoInterval(100, 0);
        policy.committed(cost(0.01, 90, 0));
        final double tau = policy.intervalSeconds();
        assertTrue(tau > 90 && tau < 100, "τ " + tau);
    }

    @Test
    void autoConvergesToTheModelOptimumUnderAFixedCost()
    {
        final AutoInterval policy = new AutoInterval(1800, 2);
        policy.committed(cost(10, 20, 1));
        for (int i = 0; i < 30; i++)
        {
            policy.committed(cost(0.2, 5.2, 0.3));
        }
        final double optimum = CheckpointModel.optimalSemiBlocking(0.2, 5, 0.3, 2, 1800);
        assertEquals(optimum, policy.intervalSeconds(), optimum * 0.001);
        assertNotEquals(CheckpointModel.young(0.2, 1800), optimum, 1, "the optimum is not Young's formula");
    }

    @Test
    void blockingCostsGiveTheBlockingOptimum()
    {
        final AutoInterval policy = new AutoInterval(1800, 70);
        policy.committed(cost(52, 52, 0));
        assertEquals(CheckpointModel.optimalBlocking(52, 70, 1800), policy.intervalSeconds(), 0.01);
    }

    @Test
    void observedFailuresShortenTheMtbf()
    {
        final long[] failures = {0};
        final double[] elapsed = {100};
        final MtbfEstimator mtbf = MtbfEstimator.of(null, () -> failures[0], () -> elapsed[0]);
        assertEquals(MtbfEstimator.DEFAULT_SECONDS, mtbf.seconds());
        elapsed[0] = 10_000;
        assertEquals(10_000, mtbf.seconds(), "no failure in 10000 s: at least that");
        failures[0] = 4;
        assertEquals(2500, mtbf.seconds());
        assertTrue(mtbf.source().contains("4 failures"), mtbf.source());
        assertEquals(600, MtbfEstimator.of(600.0, () -> 4, () -> 10_000).seconds(), "a given MTBF wins");
        assertThrows(IllegalArgumentException.class, () -> MtbfEstimator.given(-1));

        final AutoInterval policy = new AutoInterval(mtbf, 1);
        policy.committed(cost(0.5, 3, 0.2));
        final double before = policy.intervalSeconds();
        failures[0] = 40;
        policy.committed(cost(0.5, 3, 0.2));
        assertTrue(policy.intervalSeconds() < before, before + " then " + policy.intervalSeconds());
    }
}
