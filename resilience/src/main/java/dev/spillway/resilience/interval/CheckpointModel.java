package dev.spillway.resilience.interval;

import java.util.function.DoubleUnaryOperator;

/**
 * The semi-blocking checkpoint model of Ni's thesis (ch. 3, eqs. 3.3-3.10), solved for the total time and
 * normalised by the workload ({@code T / T_s}), with the interval found by numerical minimisation as the thesis
 * does. Daly's and Young's closed forms are here for comparison and as first guesses.
 *
 * <p>Symbols, all in seconds: τ the interval, δ the blocking (local) dump, θ the background (remote) part, φ the
 * interference per interval, R the restart time, M the mean time between failures.
 */
public final class CheckpointModel
{
    private static final int SCAN_POINTS = 2000;
    private static final int GOLDEN_STEPS = 200;
    private static final double GOLDEN = (Math.sqrt(5) - 1) / 2;

    private CheckpointModel()
    {
    }

    /**
     * Eq. 3.8 solved for T: {@code (1 + (δ+φ)/(τ−φ)) / (1 − (R + (τ+δ)/2 + θ − φ)/M)}.
     *
     * @return {@code T / T_s}, or +∞ outside {@code max(θ, φ) < τ < M} or where the run would never finish.
     */
    public static double semiBlocking(final double tau, final double delta, final double theta, final double phi,
        final double restart, final double mtbf)
    {
        if (!(tau > theta && tau > phi && tau < mtbf))
        {
            return Double.POSITIVE_INFINITY;
        }
        final double lost = 1 - (restart + (tau + delta) / 2 + theta - phi) / mtbf;
        return lost > 0 ? (1 + (delta + phi) / (tau - phi)) / lost : Double.POSITIVE_INFINITY;
    }

    /**
     * Eq. 3.9 solved for T: {@code (1 + δ_b/τ) / (1 − (R + (τ+δ_b)/2)/M)}.
     *
     * @return {@code T_blocking / T_s}, or +∞ outside {@code 0 < τ < M} or where the run would never finish.
     */
    public static double blocking(final double tau, final double deltaBlocking, final double restart,
        final double mtbf)
    {
        if (!(tau > 0 && tau < mtbf))
        {
            return Double.POSITIVE_INFINITY;
        }
        final double lost = 1 - (restart + (tau + deltaBlocking) / 2) / mtbf;
        return lost > 0 ? (1 + deltaBlocking / tau) / lost : Double.POSITIVE_INFINITY;
    }

    /** @return the τ in {@code (max(θ, φ), M)} that minimises eq. 3.8, or NaN if none gives a finite time. */
    public static double optimalSemiBlocking(final double delta, final double theta, final double phi,
        final double restart, final double mtbf)
    {
        return minimise(tau -> semiBlocking(tau, delta, theta, phi, restart, mtbf), Math.max(theta, phi), mtbf);
    }

    /** @return the τ in {@code (0, M)} that minimises eq. 3.9, or NaN if none gives a finite time. */
    public static double optimalBlocking(final double deltaBlocking, final double restart, final double mtbf)
    {
        return minimise(tau -> blocking(tau, deltaBlocking, restart, mtbf), 0, mtbf);
    }

    /** Eq. 3.10: {@code (T_blocking − T) / T_blocking}, each at its own optimal interval. */
    public static double benefit(final double delta, final double theta, final double phi,
        final double deltaBlocking, final double restart, final double mtbf)
    {
        final double blocking = blocking(optimalBlocking(deltaBlocking, restart, mtbf), deltaBlocking, restart, mtbf);
        final double semi = semiBlocking(optimalSemiBlocking(delta, theta, phi, restart, mtbf), delta, theta, phi,
            restart, mtbf);
        return (blocking - semi) / blocking;
    }

    /** Daly's first-order optimum (eq. 3.2): {@code sqrt(2δ(M + R))}. */
    public static double daly(final double delta, final double mtbf, final double restart)
    {
        return Math.sqrt(2 * delta * (mtbf + restart));
    }

    /**
     * Daly's higher-order optimum as seed 000 (§6.1) uses it: {@code sqrt(2δM)·[1 + ⅓·sqrt(δ/2M) + (δ/2M)/9] − δ}
     * for {@code δ < 2M}, else M.
     */
    public static double dalyHigherOrder(final double delta, final double mtbf)
    {
        if (delta >= 2 * mtbf)
        {
            return mtbf;
        }
        final double ratio = delta / (2 * mtbf);
        return young(delta, mtbf) * (1 + Math.sqrt(ratio) / 3 + ratio / 9) - delta;
    }

    /** Young's optimum, Daly's with R = 0: {@code sqrt(2δM)}. */
    public static double young(final double delta, final double mtbf)
    {
        return Math.sqrt(2 * delta * mtbf);
    }

    /**
     * Minimises {@code f}, assumed unimodal where finite, over the open interval {@code (lo, hi)}: a logarithmic
     * scan of {@value #SCAN_POINTS} points, then golden-section search between the best point's neighbours.
     *
     * @return the minimising x, or NaN if {@code f} is infinite at every scanned point.
     */
    public static double minimise(final DoubleUnaryOperator f, final double lo, final double hi)
    {
        final double from = lo > 0 ? lo : hi * 1e-9;
        if (!(hi > from))
        {
            return Double.NaN;
        }
        final double ratio = Math.log(hi / from);
        int best = -1;
        double bestValue = Double.POSITIVE_INFINITY;
        for (int i = 1; i <= SCAN_POINTS; i++)
        {
            final double value = f.applyAsDouble(point(from, ratio, i));
            if (value < bestValue)
            {
                bestValue = value;
                best = i;
            }
        }
        if (best < 0)
        {
            return Double.NaN;
        }
        double a = point(from, ratio, best - 1);
        double b = point(from, ratio, best + 1);
        double c = b - GOLDEN * (b - a);
        double d = a + GOLDEN * (b - a);
        double fc = f.applyAsDouble(c);
        double fd = f.applyAsDouble(d);
        for (int step = 0; step < GOLDEN_STEPS && b - a > 1e-12 * b; step++)
        {
            if (fc <= fd)
            {
                b = d;
                d = c;
                fd = fc;
                c = b - GOLDEN * (b - a);
                fc = f.applyAsDouble(c);
            }
            else
            {
                a = c;
                c = d;
                fc = fd;
                d = a + GOLDEN * (b - a);
                fd = f.applyAsDouble(d);
            }
        }
        final double x = (a + b) / 2;
        return f.applyAsDouble(x) <= bestValue ? x : point(from, ratio, best);
    }

    /** @return the i-th of {@value #SCAN_POINTS} points spaced logarithmically strictly inside (from, from·e^ratio). */
    private static double point(final double from, final double ratio, final int i)
    {
        return from * Math.exp(ratio * i / (SCAN_POINTS + 1));
    }
}
