package dev.spillway.cli;

import dev.spillway.resilience.interval.CheckpointModel;

import java.util.Locale;
import java.util.Map;

/**
 * The cost per checkpoint of {@code bench checkpoint}, from runs side by side at one interval: δ = added run time /
 * checkpoints, for semi-blocking and blocking, and what Daly's optimal interval makes of the semi-blocking δ for an
 * MTBF M. A comparison with fewer than {@value #LEAST_CHECKPOINTS} checkpoints in a run is not a measurement.
 *
 * @param none                run time without checkpoints (s).
 * @param semi                run time with semi-blocking checkpoints (s).
 * @param semiCheckpoints     how many it took.
 * @param blocking            run time with blocking checkpoints at the same interval (s).
 * @param blockingCheckpoints how many it took.
 * @param mtbf                M (s).
 */
record CheckpointCosts(double none, double semi, double semiCheckpoints, double blocking, double blockingCheckpoints,
    double mtbf)
{
    /** The fewest checkpoints a run of the comparison must take. */
    static final int LEAST_CHECKPOINTS = 3;
    /** Semi-blocking's δ must be at most this share of blocking's. */
    static final double DELTA_RATIO_TARGET = 0.2;
    /** Daly's predicted overhead at the optimal interval must stay below this. */
    static final double DALY_OVERHEAD_TARGET = 0.01;

    /** @return δ of semi-blocking (s); at most 0 when its cost is within the run-to-run noise. */
    double semiDelta()
    {
        return (semi - none) / semiCheckpoints;
    }

    /** @return δ of blocking (s). */
    double blockingDelta()
    {
        return (blocking - none) / blockingCheckpoints;
    }

    boolean enoughCheckpoints()
    {
        return semiCheckpoints >= LEAST_CHECKPOINTS && blockingCheckpoints >= LEAST_CHECKPOINTS;
    }

    /** @return Daly's higher-order optimal interval for the semi-blocking δ (s); NaN when δ is at most 0. */
    double dalyInterval()
    {
        return semiDelta() > 0 ? CheckpointModel.dalyHigherOrder(semiDelta(), mtbf) : Double.NaN;
    }

    /** @return the overhead of checkpointing every {@link #dalyInterval}: δ/τ*; 0 when δ is at most 0. */
    double dalyOverhead()
    {
        return semiDelta() > 0 ? semiDelta() / dalyInterval() : 0;
    }

    /**
     * @return Daly's expected total loss at that interval with a failure every M on average, restart time not
     *         counted: {@code M·(e^((τ*+δ)/M) − 1)/τ* − 1}; NaN when δ is at most 0.
     */
    double dalyExpectedLoss()
    {
        final double tau = dalyInterval();
        return mtbf * Math.expm1((tau + semiDelta()) / mtbf) / tau - 1;
    }

    void put(final Map<String, Object> out)
    {
        out.put("mtbf_s", mtbf);
        out.put("time_none_s", none);
        out.put("time_semi_s", semi);
        out.put("time_blocking_s", blocking);
        out.put("checkpoints", semiCheckpoints);
        out.put("blocking_checkpoints", blockingCheckpoints);
        out.put("overhead_pct", 100 * (semi - none) / none);
        out.put("blocking_overhead_pct", 100 * (blocking - none) / none);
        out.put("delta_semi_s", semiDelta());
        out.put("delta_blocking_s", blockingDelta());
        out.put("delta_ratio", semiDelta() / blockingDelta());
        out.put("daly_interval_s", dalyInterval());
        out.put("daly_overhead_pct", 100 * dalyOverhead());
        out.put("daly_expected_loss_pct", 100 * dalyExpectedLoss());
        out.put("enough_checkpoints", enoughCheckpoints());
    }

    String describe(final double interval)
    {
        final StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "every %.3f s: semi-blocking %+.2f %% (%.0f checkpoints, δ %.3f s each); " +
                "blocking %+.2f %% (%.0f checkpoints, δ %.3f s each)%n", interval, 100 * (semi - none) / none,
            semiCheckpoints, semiDelta(), 100 * (blocking - none) / none, blockingCheckpoints, blockingDelta()));
        if (!enoughCheckpoints())
        {
            s.append(String.format(Locale.ROOT, "FAILED: a run took fewer than %d checkpoints, so its δ measures " +
                "too little; raise --checkpoints%n", LEAST_CHECKPOINTS));
        }
        s.append(String.format(Locale.ROOT, "semi-blocking δ / blocking δ = %.3f (target ≤ %.1f: %s)%n",
            semiDelta() / blockingDelta(), DELTA_RATIO_TARGET, !enoughCheckpoints() || blockingDelta() <= 0 ?
                "not measured" : semiDelta() <= DELTA_RATIO_TARGET * blockingDelta() ? "met" : "MISSED"));
        if (semiDelta() > 0)
        {
            s.append(String.format(Locale.ROOT, "Daly at M = %.0f s: τ* %.1f s, checkpoint overhead δ/τ* %.3f %% " +
                    "(target < %.0f %%: %s); expected loss with failures %.3f %% (restart not counted)%n", mtbf,
                dalyInterval(), 100 * dalyOverhead(), 100 * DALY_OVERHEAD_TARGET, dalyOverhead() <
                    DALY_OVERHEAD_TARGET ? "met" : "MISSED", 100 * dalyExpectedLoss()));
        }
        else
        {
            s.append(String.format(Locale.ROOT, "Daly at M = %.0f s: not computed: semi-blocking δ %.3f s is within " +
                "the run-to-run noise (rerun with a larger --repeat)%n", mtbf, semiDelta()));
        }
        return s.toString();
    }
}
