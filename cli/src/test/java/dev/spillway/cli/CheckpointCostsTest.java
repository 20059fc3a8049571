package dev.spillway.cli;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** δ per checkpoint, the targets' verdicts, and a comparison with too few checkpoints reported as failed. */
class CheckpointCostsTest
{
    private static final double T = 2.0;

    @Test
    void deltaIsTheAddedTimePerCheckpointAndDalyUsesIt()
    {
        final CheckpointCosts c = new CheckpointCosts(20.0, 20.4, 4, 24.0, 4, 0.1, 0.2, T, 3600);
        assertEquals(0.1, c.semiDelta(), 1e-12);
        assertEquals(1.0, c.blockingDelta(), 1e-12);
        assertEquals(Math.sqrt(720) * (1 + Math.sqrt(0.1 / 7200) / 3 + 0.1 / 7200 / 9) - 0.1, c.dalyInterval(), 1e-9);
        assertEquals(0.1 / c.dalyInterval(), c.dalyOverhead(), 1e-12);
        assertTrue(c.dalyExpectedLoss() > c.dalyOverhead(), "failures add lost work");
        final String text = c.describe(4.0);
        assertTrue(text.contains("semi-blocking δ / blocking δ = 0.100 (target ≤ 0.2: met)"), text);
        assertTrue(text.contains("δ 0.100 ± 0.025 s each"), text);
        assertTrue(text.contains("checkpoint overhead δ/τ* 0.374 % (target < 1 %: met)"), text);
        assertTrue(text.contains("95 % intervals (t = 2.00): semi-blocking δ ≤ 0.150 s, blocking δ ≥ 0.900 s, so " +
            "δ / blocking δ ≤ 0.167"), text);
        assertFalse(text.contains("FAILED"), text);
        final Map<String, Object> out = new LinkedHashMap<>();
        c.put(out);
        assertEquals(true, out.get("enough_checkpoints"));
    }

    @Test
    void tooFewCheckpointsFailAndLeaveTheRatioUnjudgedAndACostlyOneMissesItsTargets()
    {
        final CheckpointCosts c = new CheckpointCosts(20.0, 22.0, 2, 24.0, 2, 0.1, 0.1, T, 3600);
        assertFalse(c.enoughCheckpoints());
        final String text = c.describe(8.0);
        assertTrue(text.contains("FAILED: a run took fewer than 3 checkpoints"), text);
        assertTrue(text.contains("target ≤ 0.2: not measured"), "too few checkpoints to judge the ratio: " + text);
        assertTrue(text.contains("(target < 1 %: MISSED)"), text);
        assertFalse(text.contains("95 % intervals"), "no bounds for a failed comparison: " + text);
        final String enough = new CheckpointCosts(20.0, 22.0, 4, 24.0, 4, 0.1, 0.1, T, 3600).describe(4.0);
        assertTrue(enough.contains("semi-blocking δ / blocking δ = 0.500 (target ≤ 0.2: MISSED)"), enough);
    }

    @Test
    void aCostWithinTheNoiseClaimsNoDalyFigure()
    {
        final CheckpointCosts c = new CheckpointCosts(20.0, 19.9, 4, 24.0, 4, Double.NaN, Double.NaN, T, 3600);
        assertTrue(Double.isNaN(c.dalyInterval()));
        final String text = c.describe(4.0);
        assertTrue(text.contains("semi-blocking δ -0.025 s is within the run-to-run noise, so only its bound below " +
            "counts (target < 1 %: met by the medians; not settled)"), text);
        assertTrue(text.contains("(target ≤ 0.2: met by the medians; not settled)"), text);
        assertTrue(text.contains("not settled: one run of each gives no standard error"), text);
    }

    @Test
    void aTargetMetByTheMediansIsSettledOnlyByTheIntervals()
    {
        final CheckpointCosts noisy = new CheckpointCosts(20.0, 19.9, 4, 24.0, 4, 0.8, 0.8, T, 3600);
        assertEquals(0.375, noisy.semiDeltaBound(), 1e-12, "−0.025 plus two errors of 0.2");
        assertEquals(0.6, noisy.blockingDeltaFloor(), 1e-12);
        final String text = noisy.describe(4.0);
        assertTrue(text.contains("(target ≤ 0.2: met by the medians; not settled)"), text);
        assertTrue(text.contains("semi-blocking δ ≤ 0.375 s, blocking δ ≥ 0.600 s, so δ / blocking δ ≤ 0.625 and " +
            "Daly's overhead ≤ 0.725 %"), text);
        assertTrue(text.contains("(target < 1 %: met)"), "Daly's target holds even at the bound: " + text);
        final CheckpointCosts costly = new CheckpointCosts(20.0, 20.4, 4, 24.0, 4, 20, 1, T, 3600);
        assertTrue(costly.describe(4.0).contains("(target < 1 %: met by the medians; not settled)"),
            costly.describe(4.0));
        final CheckpointCosts flat = new CheckpointCosts(20.0, 20.1, 4, 21.0, 4, 0.1, 4, T, 3600);
        assertTrue(flat.describe(4.0).contains("δ / blocking δ is unbounded (blocking δ is within the noise)"),
            flat.describe(4.0));
    }

    @Test
    void theErrorOfADifferenceOfMediansPoolsBothSpreads()
    {
        assertEquals(Math.sqrt(Math.PI), Samples.medianDifferenceError(new double[] {1, 3}, new double[] {2, 4}),
            1e-12);
        assertTrue(Double.isNaN(Samples.medianDifferenceError(new double[] {1}, new double[] {2, 4})));
    }

    @Test
    void studentsTNarrowsWithTheDegreesOfFreedom()
    {
        assertEquals(12.706, Samples.studentT975(1), 1e-9);
        assertEquals(2.228, Samples.studentT975(10), 1e-9);
        assertEquals(2.021, Samples.studentT975(40), 1e-3);
        assertEquals(1.980, Samples.studentT975(120), 1e-3);
        assertThrows(IllegalArgumentException.class, () -> Samples.studentT975(0));
    }
}
