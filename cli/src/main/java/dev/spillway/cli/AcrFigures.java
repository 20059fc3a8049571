package dev.spillway.cli;

import dev.spillway.resilience.model.AcrModel;
import dev.spillway.resilience.model.AcrModel.Optimum;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code spillway plan} says about ACR (seed 003 §4.5): two replicas of every rank that compare checkpoints to
 * catch silent data corruption, each scheme at its best interval, as {@code --json} writes it (seconds).
 *
 * @param socketsPerReplica S, the ranks of one replica, each its own failure unit.
 * @param sdcFit            silent data corruptions per 10⁹ hours per rank.
 * @param hardMtbfS         M_H = host MTBF / S.
 * @param sdcMtbfS          M_S = 10⁹ h / (FIT·S); +∞ without SDC.
 * @param schemes           strong, medium and weak at their best intervals.
 */
record AcrFigures(int socketsPerReplica, double sdcFit, double hardMtbfS, double sdcMtbfS, List<Scheme> schemes)
{
    private static final double FIT_HOURS_S = 1e9 * 3600;

    /**
     * One scheme at its best interval.
     *
     * @param scheme      strong, medium or weak.
     * @param intervalS   τ, NaN if none finishes.
     * @param totalTimeS  T, +∞ if none finishes.
     * @param utilisation {@code W/(2T)}: the replicas take half the machine.
     */
    record Scheme(String scheme, double intervalS, double totalTimeS, double utilisation)
    {
    }

    /** @return ACR for {@code ranks} ranks per replica, with R_H = R_S = {@code restartS}. */
    static AcrFigures of(final int ranks, final double hostMtbfS, final double sdcFit, final double workS,
        final double checkpointS, final double restartS)
    {
        final double hard = hostMtbfS / ranks;
        final double sdc = sdcFit > 0 ? FIT_HOURS_S / (sdcFit * ranks) : Double.POSITIVE_INFINITY;
        final AcrModel model = new AcrModel(workS, checkpointS, restartS, restartS, hard, sdc);
        final List<Scheme> schemes = new ArrayList<>();
        for (final AcrModel.Scheme s : AcrModel.Scheme.values())
        {
            final Optimum o = model.optimum(s);
            schemes.add(new Scheme(s.name().toLowerCase(Locale.ROOT), o.interval(), o.totalTime(), o.utilisation()));
        }
        return new AcrFigures(ranks, sdcFit, hard, sdc, schemes);
    }
}
