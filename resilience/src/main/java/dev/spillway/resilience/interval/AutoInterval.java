package dev.spillway.resilience.interval;

import dev.spillway.checkpoint.CheckpointCost;
import dev.spillway.checkpoint.CheckpointPolicy;

/**
 * The interval that minimises the expected run time under the semi-blocking model ({@link CheckpointModel}, eq.
 * 3.8), from measured costs. It starts at Young's {@code sqrt(2δM)} with δ = {@link #INITIAL_DELTA_SECONDS}; after
 * every committed checkpoint it updates exponentially weighted averages (weight {@link #WEIGHT}; the first cost
 * replaces the guess) of
 * <ul>
 *   <li>δ: {@link CheckpointCost#blockNanos()}, the time tasks were held back;</li>
 *   <li>θ: {@link CheckpointCost#totalNanos()} less {@code blockNanos}, the background part (zero in blocking mode,
 *       where eq. 3.8 then reduces to the blocking eq. 3.9);</li>
 *   <li>φ: {@link CheckpointCost#interferenceNanos()};</li>
 * </ul>
 * and recomputes τ by numerical minimisation, clamped to {@code (δ + θ, M)}: a checkpoint is never due before the
 * previous one could have committed (one generation is in flight at a time), nor as rarely as the MTBF.
 *
 * <p>{@link #due} and {@link #committed} are called from the IO thread, {@link #describe} from any thread.
 */
public final class AutoInterval implements CheckpointPolicy
{
    /** The guess for δ before any checkpoint was measured: a DRAM copy of a modest working set, 0.1 s. */
    public static final double INITIAL_DELTA_SECONDS = 0.1;
    /** The weight of the newest cost in the averages. */
    public static final double WEIGHT = 0.3;

    private final MtbfEstimator mtbf;
    private final double restartSeconds;
    private double delta = INITIAL_DELTA_SECONDS;
    private double theta;
    private double phi;
    private double mtbfSeconds;
    private long samples;
    private volatile double tauSeconds;

    /**
     * @param mtbfSeconds    the mean time between failures M.
     * @param restartSeconds the restart time R.
     */
    public AutoInterval(final double mtbfSeconds, final double restartSeconds)
    {
        this(MtbfEstimator.given(mtbfSeconds), restartSeconds);
    }

    /**
     * @param mtbf           where the mean time between failures M comes from, read again at every commit.
     * @param restartSeconds the restart time R.
     */
    public AutoInterval(final MtbfEstimator mtbf, final double restartSeconds)
    {
        if (!(restartSeconds >= 0 && restartSeconds < Double.POSITIVE_INFINITY))
        {
            throw new IllegalArgumentException("restart time must be a non-negative number of seconds, got " +
                restartSeconds);
        }
        this.mtbf = mtbf;
        this.restartSeconds = restartSeconds;
        this.mtbfSeconds = mtbf.seconds();
        this.tauSeconds = Math.min(CheckpointModel.young(INITIAL_DELTA_SECONDS, mtbfSeconds), mtbfSeconds / 2);
    }

    @Override
    public boolean due(final long tasksSinceCut, final long nanosSinceCut)
    {
        return nanosSinceCut >= tauSeconds * 1e9;
    }

    @Override
    public synchronized void committed(final CheckpointCost cost)
    {
        final double block = cost.blockNanos() / 1e9;
        final double background = Math.max(0, cost.totalNanos() - cost.blockNanos()) / 1e9;
        final double interference = cost.interferenceNanos() / 1e9;
        final double weight = samples == 0 ? 1 : WEIGHT;
        delta += weight * (block - delta);
        theta += weight * (background - theta);
        phi += weight * (interference - phi);
        samples++;
        mtbfSeconds = mtbf.seconds();
        final double optimum = CheckpointModel.optimalSemiBlocking(delta, theta, phi, restartSeconds, mtbfSeconds);
        final double tau = Double.isNaN(optimum) ? CheckpointModel.daly(delta, mtbfSeconds, restartSeconds) : optimum;
        tauSeconds = Math.max(Math.min(tau, Math.nextDown(mtbfSeconds)), Math.nextUp(delta + theta));
    }

    /** @return the current interval in seconds. */
    public double intervalSeconds()
    {
        return tauSeconds;
    }

    @Override
    public synchronized String describe()
    {
        return String.format("auto: every %.3g s (δ %.3g s, θ %.3g s, φ %.3g s, R %.3g s, M %.0f s %s%s)",
            tauSeconds, delta, theta, phi, restartSeconds, mtbfSeconds, mtbf.source(),
            samples == 0 ? ", δ guessed" : "");
    }
}
