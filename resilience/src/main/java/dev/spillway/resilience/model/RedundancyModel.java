package dev.spillway.resilience.model;

import dev.spillway.resilience.interval.CheckpointModel;
import dev.spillway.resilience.redundancy.RedundancyDegree;
import dev.spillway.resilience.redundancy.RedundancyPlan;

/**
 * Seed 004's model of partial redundancy combined with checkpoints (eqs. 1-15, as the seed-004 note's §3.8 gives
 * them): the expected time to finish {@code t} of failure-free work on N logical ranks with r replicas each, every
 * physical process on its own node failing at rate 1/θ, checkpoints at Daly's interval, and a global restart when a
 * whole sphere has failed. All times in one unit.
 * <pre>
 *   t_Red = (1 − α)·t + α·t·r                                                     eq. 1
 *   ln R_sys = N_⌊r⌋·ln(1 − (t_Red/θ)^⌊r⌋) + N_⌈r⌉·ln(1 − (t_Red/θ)^⌈r⌉)        eq. 9, in log space
 *   λ = −ln R_sys / t_Red,  Θ = 1/λ                                                eq. 10
 *   δ = Daly's higher-order interval for c and Θ; Θ when c ≥ 2Θ                    eq. 15 with Daly's guard
 *   t_lw = (Θ − Θ·e^(−δ/Θ) − δ·e^(−(δ+c)/Θ)) / (1 − e^(−(δ+c)/Θ))                  eq. 12
 *   t_RR = (1 − e^(−x/Θ))·I + e^(−x/Θ)·x,  I = Θ − e^(−x/Θ)·(x + Θ),  x = R + t_lw  eq. 13 as printed
 *   T = (t_Red + t_Red·c/δ) / (1 − λ·t_RR), +∞ when λ·t_RR ≥ 1                     eq. 14 with t := t_Red
 * </pre>
 * Eq. 6 is exact ({@link RedundancyPlan}). {@code R_sys} itself underflows a double (e^(−2257) at N = 771,251), so
 * it is never formed.
 *
 * @param work           t, the failure-free, non-redundant run time.
 * @param commFraction   α, the fraction of t spent communicating, which r slows down.
 * @param nodeMtbf       θ, one node's (process's) mean time between failures.
 * @param checkpointCost c.
 * @param restartCost    R.
 * @param eq13           which form of eq. 13.
 */
public record RedundancyModel(double work, double commFraction, double nodeMtbf, double checkpointCost,
    double restartCost, Eq13 eq13)
{
    /** The form of eq. 13, restart plus rework. */
    public enum Eq13
    {
        /** As printed, weighting the failure's mean time by its probability twice: reproduces the paper's figures. */
        LITERAL,
        /** {@code E[min(T_fail, x)] = Θ·(1 − e^(−x/Θ))}. */
        CORRECTED
    }

    /**
     * What the model expects for one degree.
     *
     * @param degree         r.
     * @param processes      {@code N_total} (eq. 8).
     * @param redundantTime  {@code t_Red} (eq. 1).
     * @param logReliability {@code ln R_sys} (eq. 9).
     * @param failureRate    {@code λ_sys} (eq. 10).
     * @param interval       δ (eq. 15).
     * @param lostWork       {@code t_lw} (eq. 12).
     * @param restartRework  {@code t_RR} (eq. 13).
     * @param totalTime      {@code T_total} (eq. 14), +∞ if the job never finishes in expectation.
     */
    public record Prediction(RedundancyDegree degree, long processes, double redundantTime, double logReliability,
        double failureRate, double interval, double lostWork, double restartRework, double totalTime)
    {
        /** @return Θ, the system's mean time between sphere failures. */
        public double systemMtbf()
        {
            return 1 / failureRate;
        }

        /** @return the expected checkpoints, {@code t_Red/δ} (the figures' "Chkpts"). */
        public double checkpoints()
        {
            return redundantTime / interval;
        }

        /** @return the expected failures, {@code λ·T} (eq. 11). */
        public double failures()
        {
            return failureRate * totalTime;
        }
    }

    /** Checks the inputs. */
    public RedundancyModel
    {
        if (!(positive(work) && positive(nodeMtbf) && positive(checkpointCost) && restartCost >= 0 &&
            restartCost < Double.POSITIVE_INFINITY && commFraction >= 0 && commFraction <= 1))
        {
            throw new IllegalArgumentException("need positive t, θ and c, R ≥ 0 and 0 ≤ α ≤ 1, got t " + work +
                ", θ " + nodeMtbf + ", c " + checkpointCost + ", R " + restartCost + ", α " + commFraction);
        }
    }

    private static boolean positive(final double x)
    {
        return x > 0 && x < Double.POSITIVE_INFINITY;
    }

    /** @return {@code t_Red} for degree r (eq. 1). */
    public double redundantTime(final RedundancyDegree r)
    {
        return (1 - commFraction) * work + commFraction * work * r.doubleValue();
    }

    /** @return whether eq. 9 is defined for r: {@code t_Red < θ}. */
    public boolean applies(final RedundancyDegree r)
    {
        return redundantTime(r) < nodeMtbf;
    }

    /**
     * @param ranks N, the logical ranks.
     * @throws IllegalArgumentException where {@code t_Red ≥ θ}: eq. 9 is undefined there.
     */
    public Prediction predict(final int ranks, final RedundancyDegree r)
    {
        if (!applies(r))
        {
            throw new IllegalArgumentException("seed 004's eq. 9 needs t_Red < θ, got t_Red " + redundantTime(r) +
                " for r " + r + " and θ " + nodeMtbf);
        }
        final RedundancyPlan plan = RedundancyPlan.of(ranks, r);
        final double tRed = redundantTime(r);
        final double p = tRed / nodeMtbf;
        final double lnR = plan.floorRanks() * Math.log1p(-Math.pow(p, r.floor())) +
            plan.ceilRanks() * Math.log1p(-Math.pow(p, r.ceil()));
        final double lambda = -lnR / tRed;
        if (lambda == 0) // (t_Red/θ)^⌈r⌉ underflows: no sphere ever fails, so no checkpoints either
        {
            return new Prediction(r, plan.processes(), tRed, lnR, 0, Double.POSITIVE_INFINITY, 0, restartCost, tRed);
        }
        final double theta = 1 / lambda;
        final double delta = CheckpointModel.dalyHigherOrder(checkpointCost, theta);
        final double lostWork = lostWork(delta, checkpointCost, theta);
        final double rr = restartRework(restartCost + lostWork, theta, eq13);
        final double free = 1 - lambda * rr;
        final double total = free > 0 ? (tRed + tRed * checkpointCost / delta) / free : Double.POSITIVE_INFINITY;
        return new Prediction(r, plan.processes(), tRed, lnR, lambda, delta, lostWork, rr, total);
    }

    /** @return {@code t_lw}, the expected work lost to a failure with interval δ, cost c and system MTBF Θ (eq. 12). */
    public static double lostWork(final double delta, final double cost, final double systemMtbf)
    {
        final double segment = -(delta + cost) / systemMtbf;
        return (-systemMtbf * Math.expm1(-delta / systemMtbf) - delta * Math.exp(segment)) / -Math.expm1(segment);
    }

    /** @return {@code t_RR}, the expected restart-plus-rework phase of length x without failures (eq. 13). */
    public static double restartRework(final double x, final double systemMtbf, final Eq13 form)
    {
        final double survive = Math.exp(-x / systemMtbf);
        final double failedPart = -systemMtbf * Math.expm1(-x / systemMtbf) - survive * x; // Θ − e^(−x/Θ)·(x + Θ)
        return (form == Eq13.LITERAL ? (1 - survive) * failedPart : failedPart) + survive * x;
    }
}
