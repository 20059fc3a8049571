package dev.spillway.resilience.interval;

import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * The mean time between failures the interval is chosen for, in seconds:
 * <ol>
 *   <li>the value given, when there is one;</li>
 *   <li>else, once failures were observed, the elapsed time since the run first started divided by the failures
 *       (each restart in the checkpoint directory, i.e. each incarnation, counts as one failure, whether or not it
 *       found a checkpoint to resume);</li>
 *   <li>else the larger of {@link #DEFAULT_SECONDS} and the elapsed time: a run that has not failed yet for that
 *       long has a mean time between failures of at least about that.</li>
 * </ol>
 * Deliberately simple (a rate estimate, no window or Weibull fit); the thesis leaves the estimator open.
 */
public final class MtbfEstimator
{
    /** The mean time between failures assumed before any is observed: one hour. */
    public static final double DEFAULT_SECONDS = 3600;

    private final Double given;
    private final LongSupplier failures;
    private final DoubleSupplier elapsedSeconds;

    private MtbfEstimator(final Double given, final LongSupplier failures, final DoubleSupplier elapsedSeconds)
    {
        if (given != null && !(given > 0 && given < Double.POSITIVE_INFINITY))
        {
            throw new IllegalArgumentException("MTBF must be a positive number of seconds, got " + given);
        }
        this.given = given;
        this.failures = failures;
        this.elapsedSeconds = elapsedSeconds;
    }

    /** @return an estimator that always answers {@code seconds}. */
    public static MtbfEstimator given(final double seconds)
    {
        return new MtbfEstimator(seconds, () -> 0, () -> 0);
    }

    /**
     * @param given          the MTBF in seconds, or {@code null} to observe it.
     * @param failures       failures so far (restarts: the checkpoint store's incarnation).
     * @param elapsedSeconds seconds since the run first started, across restarts.
     */
    public static MtbfEstimator of(final Double given, final LongSupplier failures,
        final DoubleSupplier elapsedSeconds)
    {
        return new MtbfEstimator(given, failures, elapsedSeconds);
    }

    /** @return the MTBF estimate in seconds. */
    public double seconds()
    {
        if (given != null)
        {
            return given;
        }
        final long failed = failures.getAsLong();
        final double elapsed = elapsedSeconds.getAsDouble();
        return failed > 0 && elapsed > 0 ? elapsed / failed : Math.max(DEFAULT_SECONDS, elapsed);
    }

    /** @return where {@link #seconds()} comes from, for reports. */
    public String source()
    {
        if (given != null)
        {
            return "given";
        }
        final long failed = failures.getAsLong();
        return failed > 0 ? String.format("observed: %d failures in %.0f s", failed, elapsedSeconds.getAsDouble()) :
            "no failure observed";
    }
}
