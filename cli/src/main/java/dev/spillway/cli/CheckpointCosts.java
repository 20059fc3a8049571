package dev.spillway.cli;

import dev.spillway.resilience.interval.CheckpointModel;

import java.util.Locale;
import java.util.Map;

/**
 * The cost per checkpoint of {@code bench checkpoint}, from runs side by side at one interval: δ = added run time /
 * checkpoints, for semi-blocking and blocking, with its standard error from the runs' spread, and what Daly's optimal
 * interval makes of the semi-blocking δ for an MTBF M. A comparison with fewer than {@value #LEAST_CHECKPOINTS}
 * checkpoints in a run is not a measurement, and a target met by the medians is settled only if it also holds at the
 * ends of the 95 % intervals.
 *
 * @param none                median run time without checkpoints (s).
 * @param semi                median run time with semi-blocking checkpoints (s).
 * @param semiCheckpoints     how many it took.
 * @param blocking            median run time with blocking checkpoints at the same interval (s).
 * @param blockingCheckpoints how many it took.
 * @param semiError           standard error of {@code semi − none} (s); NaN if unknown (one run of each).
 * @param blockingError       standard error of {@code blocking − none} (s); NaN if unknown.
 * @param quantile            the multiple of a standard error that reaches the end of a 95 % interval (Student's t
 *                            for the errors' degrees of freedom).
 * @param mtbf                M (s).
 */
record CheckpointCosts(double none, double semi, double semiCheckpoints, double blocking, double blockingCheckpoints,
    double semiError, double blockingError, double quantile, double mtbf)
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

    /** @return the standard error of {@link #semiDelta()} (s); NaN if unknown. */
    double semiDeltaError()
    {
        return semiError / semiCheckpoints;
    }

    /** @return the standard error of {@link #blockingDelta()} (s); NaN if unknown. */
    double blockingDeltaError()
    {
        return blockingError / blockingCheckpoints;
    }

    /** @return the top of semi-blocking δ's 95 % interval, at least 0 (s); NaN if unknown. */
    double semiDeltaBound()
    {
        return Math.max(semiDelta() + quantile * semiDeltaError(), 0);
    }

    /** @return the bottom of blocking δ's 95 % interval (s); NaN if unknown. */
    double blockingDeltaFloor()
    {
        return blockingDelta() - quantile * blockingDeltaError();
    }

    boolean enoughCheckpoints()
    {
        return semiCheckpoints >= LEAST_CHECKPOINTS && blockingCheckpoints >= LEAST_CHECKPOINTS;
    }

    /** @return Daly's higher-order optimal interval for the semi-blocking δ (s); NaN when δ is at most 0. */
    double dalyInterval()
    {
        return dalyInterval(semiDelta());
    }

    /** @return the overhead of checkpointing every {@link #dalyInterval}: δ/τ*; 0 when δ is at most 0. */
    double dalyOverhead()
    {
        return dalyOverhead(semiDelta());
    }

    /** @return the overhead Daly's interval gives for {@link #semiDeltaBound()}; NaN if unknown. */
    double dalyOverheadBound()
    {
        return dalyOverhead(semiDeltaBound());
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

    private double dalyInterval(final double delta)
    {
        return delta > 0 ? CheckpointModel.dalyHigherOrder(delta, mtbf) : Double.NaN;
    }

    private double dalyOverhead(final double delta)
    {
        return Double.isNaN(delta) ? Double.NaN : delta > 0 ? delta / dalyInterval(delta) : 0;
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
        out.put("delta_semi_error_s", semiDeltaError());
        out.put("delta_semi_bound_s", semiDeltaBound());
        out.put("delta_blocking_s", blockingDelta());
        out.put("delta_blocking_error_s", blockingDeltaError());
        out.put("delta_blocking_floor_s", blockingDeltaFloor());
        out.put("delta_ratio", semiDelta() / blockingDelta());
        out.put("daly_interval_s", dalyInterval());
        out.put("daly_overhead_pct", 100 * dalyOverhead());
        out.put("daly_overhead_bound_pct", 100 * dalyOverheadBound());
        out.put("daly_expected_loss_pct", 100 * dalyExpectedLoss());
        out.put("enough_checkpoints", enoughCheckpoints());
    }

    String describe(final double interval)
    {
        final StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "every %.3f s: semi-blocking %+.2f %% (%.0f checkpoints, δ %.3f%s s " +
                "each); blocking %+.2f %% (%.0f checkpoints, δ %.3f%s s each)%n", interval,
            100 * (semi - none) / none, semiCheckpoints, semiDelta(), error(semiDeltaError()),
            100 * (blocking - none) / none, blockingCheckpoints, blockingDelta(), error(blockingDeltaError())));
        if (!enoughCheckpoints())
        {
            s.append(String.format(Locale.ROOT, "FAILED: a run took fewer than %d checkpoints, so its δ measures " +
                "too little; raise --checkpoints%n", LEAST_CHECKPOINTS));
        }
        s.append(String.format(Locale.ROOT, "semi-blocking δ / blocking δ = %.3f (target ≤ %.1f: %s)%n",
            semiDelta() / blockingDelta(), DELTA_RATIO_TARGET, ratioVerdict()));
        final String daly = verdict(dalyOverhead() < DALY_OVERHEAD_TARGET, dalyOverheadBound() < DALY_OVERHEAD_TARGET);
        if (semiDelta() > 0)
        {
            s.append(String.format(Locale.ROOT, "Daly at M = %.0f s: τ* %.1f s, checkpoint overhead δ/τ* %.3f %% " +
                    "(target < %.0f %%: %s); expected loss with failures %.3f %% (restart not counted)%n", mtbf,
                dalyInterval(), 100 * dalyOverhead(), 100 * DALY_OVERHEAD_TARGET, daly, 100 * dalyExpectedLoss()));
        }
        else
        {
            s.append(String.format(Locale.ROOT, "Daly at M = %.0f s: semi-blocking δ %.3f s is within the " +
                "run-to-run noise, so only its bound below counts (target < %.0f %%: %s)%n", mtbf, semiDelta(),
                100 * DALY_OVERHEAD_TARGET, daly));
        }
        if (Double.isNaN(semiError) || Double.isNaN(blockingError))
        {
            s.append("not settled: one run of each gives no standard error (rerun with --repeat 2 or more)\n");
        }
        else if (enoughCheckpoints())
        {
            s.append(String.format(Locale.ROOT, "95 %% intervals (t = %.2f): semi-blocking δ ≤ %.3f s, blocking δ ≥ " +
                    "%.3f s, so δ / blocking δ %s and Daly's overhead ≤ %.3f %%%n", quantile, semiDeltaBound(),
                blockingDeltaFloor(), blockingDeltaFloor() > 0 ? String.format(Locale.ROOT, "≤ %.3f",
                    semiDeltaBound() / blockingDeltaFloor()) : "is unbounded (blocking δ is within the noise)",
                100 * dalyOverheadBound()));
        }
        return s.toString();
    }

    private String ratioVerdict()
    {
        if (!enoughCheckpoints() || blockingDelta() <= 0)
        {
            return "not measured";
        }
        return verdict(semiDelta() <= DELTA_RATIO_TARGET * blockingDelta(),
            blockingDeltaFloor() > 0 && semiDeltaBound() <= DELTA_RATIO_TARGET * blockingDeltaFloor());
    }

    /** @return MISSED, met by the medians but not settled by the intervals (or with none), or met. */
    private static String verdict(final boolean byMedians, final boolean byIntervals)
    {
        return !byMedians ? "MISSED" : byIntervals ? "met" : "met by the medians; not settled";
    }

    private static String error(final double error)
    {
        return Double.isNaN(error) ? "" : String.format(Locale.ROOT, " ± %.3f", error);
    }
}
