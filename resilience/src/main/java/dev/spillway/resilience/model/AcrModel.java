package dev.spillway.resilience.model;

import dev.spillway.resilience.interval.CheckpointModel;

/**
 * ACR's model (seed 003 §4.5, Table 4.1): two replicas of the whole job that checkpoint together, compare their
 * checkpoints to detect silent data corruption (SDC), and recover a hard error from the partner replica by one of
 * three schemes. With the checkpoint overhead {@code Δ = (W/τ − 1)·δ} and the restart time
 * {@code (T/M_H)·R_H + (T/M_S)·R_S}, the table's equations solved for T are
 * <pre>
 *   T_x = (W + Δ) / (1 − R_H/M_H − R_S/M_S − (τ+δ)/M_S − h_x)
 *   h_strong = (τ+δ)/(2·M_H)      a hard error costs half a period of rework
 *   h_medium = δ/M_H              one forced checkpoint
 *   h_weak   = P·(τ+δ)/(2·M_H)    half a period, only when a second failure comes in the same period:
 *   P = 1 − e^(−(τ+δ)/M_H)·(1 + (τ+δ)/M_H)
 * </pre>
 * and every SDC costs a whole period. The thesis prints the weak equation with {@code T_S} in its hard-error term;
 * it is read as {@code T_W}. The interval τ is found numerically, as the thesis does, over {@code (0, W]}. The
 * utilisation counts the replication: {@code W/(2T)}. All times in one unit.
 *
 * @param work        W, the computation time.
 * @param checkpoint  δ, the time to take a checkpoint.
 * @param hardRestart R_H, the restart time after a hard error.
 * @param sdcRestart  R_S, the restart time after an SDC.
 * @param hardMtbf    M_H, one replica's mean time between hard errors.
 * @param sdcMtbf     M_S, its mean time between SDCs; +∞ for none.
 */
public record AcrModel(double work, double checkpoint, double hardRestart, double sdcRestart, double hardMtbf,
    double sdcMtbf)
{
    /** How a hard error is recovered (seed 003 §4.2.3-4.2.4). */
    public enum Scheme
    {
        /** The crashed replica restarts from the last verified checkpoint: every SDC detected, most rework. */
        STRONG,
        /** The healthy replica checkpoints at once and ships it: SDC before it goes undetected. */
        MEDIUM,
        /** The healthy replica ships its next scheduled checkpoint: that interval is unprotected. */
        WEAK
    }

    /**
     * A scheme at its best interval.
     *
     * @param scheme      the scheme.
     * @param interval    τ, minimising T.
     * @param totalTime   T at τ.
     * @param utilisation {@code W/(2T)}.
     */
    public record Optimum(Scheme scheme, double interval, double totalTime, double utilisation)
    {
    }

    /** Checks the inputs. */
    public AcrModel
    {
        if (!(work > 0 && work < Double.POSITIVE_INFINITY && checkpoint > 0 && hardRestart >= 0 && sdcRestart >= 0 &&
            hardMtbf > 0 && sdcMtbf > 0 && checkpoint < Double.POSITIVE_INFINITY &&
            hardRestart < Double.POSITIVE_INFINITY && sdcRestart < Double.POSITIVE_INFINITY))
        {
            throw new IllegalArgumentException("need positive W, δ, M_H and M_S and finite R_H, R_S ≥ 0, got W " +
                work + ", δ " + checkpoint + ", R_H " + hardRestart + ", R_S " + sdcRestart + ", M_H " + hardMtbf +
                ", M_S " + sdcMtbf);
        }
    }

    /** @return {@code T_x} at interval τ, or +∞ outside {@code (0, W]} or where the run would never finish. */
    public double totalTime(final Scheme scheme, final double tau)
    {
        if (!(tau > 0 && tau <= work))
        {
            return Double.POSITIVE_INFINITY;
        }
        final double period = tau + checkpoint;
        final double free = 1 - hardRestart / hardMtbf - sdcRestart / sdcMtbf - period / sdcMtbf -
            hardRework(scheme, period);
        return free > 0 ? (work + (work / tau - 1) * checkpoint) / free : Double.POSITIVE_INFINITY;
    }

    /** @return {@code h_x}: the rework a hard error costs, per unit of {@code M_H}. */
    private double hardRework(final Scheme scheme, final double period)
    {
        return switch (scheme)
        {
            case STRONG -> period / (2 * hardMtbf);
            case MEDIUM -> checkpoint / hardMtbf;
            case WEAK -> secondFailure(period) * period / (2 * hardMtbf);
        };
    }

    /** @return P, the probability of at least two hard errors in one period. */
    private double secondFailure(final double period)
    {
        final double m = period / hardMtbf;
        return -Math.expm1(-m) - m * Math.exp(-m); // 1 − e^(−m)·(1 + m)
    }

    /** @return the scheme at the τ that minimises its T, or with τ NaN and T +∞ if no τ finishes. */
    public Optimum optimum(final Scheme scheme)
    {
        final double tau = CheckpointModel.minimise(t -> totalTime(scheme, t), 0, work);
        final double total = Double.isNaN(tau) ? Double.POSITIVE_INFINITY : totalTime(scheme, tau);
        return new Optimum(scheme, tau, total, work / (2 * total));
    }
}
