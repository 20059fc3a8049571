package dev.spillway.cli;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** δ per checkpoint, the targets' verdicts, and a comparison with too few checkpoints reported as failed. */
class CheckpointCostsTest
{
    @Test
    void deltaIsTheAddedTimePerCheckpointAndDalyUsesIt()
    {
        final CheckpointCosts c = new CheckpointCosts(20.0, 20.4, 4, 24.0, 4, 0.1, 0.2, 3600);
        assertEquals(0.1, c.semiDelta(), 1e-12);
        assertEquals(1.0, c.blockingDelta(), 1e-12);
        assertEquals(Math.sqrt(720) * (1 + Math.sqrt(0.1 / 7200) / 3 + 0.1 / 7200 / 9) - 0.1, c.dalyInterval(), 1e-9);
        assertEquals(0.1 / c.dalyInterval(), c.dalyOverhead(), 1e-12);
        assertTrue(c.dalyExpectedLoss() > c.dalyOverhead(), "failures add lost work");
        final String text = c.describe(4.0);
        assertTrue(text.contains("semi-blocking δ / blocking δ = 0.100 (target ≤ 0.2: met)"), text);
        assertTrue(text.contains("δ 0.100 ± 0.025 s each"), text);
        assertTrue(text.contains("at 2 standard errors: semi-blocking δ ≤ 0.150 s, so δ / blocking δ ≤ 0.150"), text);
        assertTrue(text.contains("checkpoint overhead δ/τ* 0.374 % (target < 1 %: met)"), text);
        assertFalse(text.contains("FAILED"), text);
        final Map<String, Object> out = new LinkedHashMap<>();
        c.put(out);
        assertEquals(true, out.get("enough_checkpoints"));
    }

    @Test
    void tooFewCheckpointsFailAndLeaveTheRatioUnjudgedAndACostlyOneMissesItsTargets()
    {
        final CheckpointCosts c = new CheckpointCosts(20.0, 22.0, 2, 24.0, 2, 0.1, 0.1, 3600);
        assertFalse(c.enoughCheckpoints());
        final String text = c.describe(8.0);
        assertTrue(text.contains("FAILED: a run took fewer than 3 checkpoints"), text);
        assertTrue(text.contains("target ≤ 0.2: not measured"), "too few checkpoints to judge the ratio: " + text);
        assertTrue(text.contains("(target < 1 %: MISSED)"), text);
        final String enough = new CheckpointCosts(20.0, 22.0, 4, 24.0, 4, 0.1, 0.1, 3600).describe(4.0);
        assertTrue(enough.contains("semi-blocking δ / blocking δ = 0.500 (target ≤ 0.2: MISSED)"), enough);
        final String free = new CheckpointCosts(20.0, 20.4, 4, 24.0, 4, 0.1, 0.1, 3600).describe(4.0);
        assertTrue(free.contains("(target ≤ 0.2: met)"), free);
    }

    @Test
    void aCostWithinTheNoiseClaimsNoDalyFigure()
    {
        final CheckpointCosts c = new CheckpointCosts(20.0, 19.9, 4, 24.0, 4, Double.NaN, Double.NaN, 3600);
        assertTrue(Double.isNaN(c.dalyInterval()));
        final String text = c.describe(4.0);
        assertTrue(text.contains("not computed from the median: semi-blocking δ -0.025 s is within the run-to-run " +
            "noise"), text);
        assertTrue(text.contains("(target ≤ 0.2: met by the medians; not settled)"), text);
        assertTrue(text.contains("not settled: one run of each gives no standard error"), text);
    }

    @Test
    void aTargetMetByTheMediansIsSettledOnlyAtTwoStandardErrors()
    {
        final CheckpointCosts noisy = new CheckpointCosts(20.0, 19.9, 4, 24.0, 4, 0.8, 0.8, 3600);
        assertEquals(0.4, noisy.semiDeltaBound(), 1e-12, "a negative δ counts as 0, plus two errors of 0.2");
        final String text = noisy.describe(4.0);
        assertTrue(text.contains("(target ≤ 0.2: met by the medians; not settled at 2 standard errors)"), text);
        assertTrue(text.contains("semi-blocking δ ≤ 0.400 s, so δ / blocking δ ≤ 0.400 and Daly's overhead ≤ 0.749 %" +
            " (target < 1 %: met)"), text);
        final CheckpointCosts costly = new CheckpointCosts(20.0, 20.4, 4, 24.0, 4, 20, 1, 3600);
        assertTrue(costly.describe(4.0).contains("(target < 1 %: not settled)"), costly.describe(4.0));
    }

    @Test
    void theErrorOfADifferenceOfMediansPoolsBothSpreads()
    {
        assertEquals(Math.sqrt(Math.PI), Samples.medianDifferenceError(new double[] {1, 3}, new double[] {2, 4}),
            1e-12);
        assertTrue(Double.isNaN(Samples.medianDifferenceError(new double[] {1}, new double[] {2, 4})));
    }
}
