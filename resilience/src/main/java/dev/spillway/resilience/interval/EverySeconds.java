package dev.spillway.resilience.interval;

import dev.spillway.checkpoint.CheckpointCost;
import dev.spillway.checkpoint.CheckpointPolicy;

/** A checkpoint at the first task submitted {@code seconds} or more after the previous cut. */
public final class EverySeconds implements CheckpointPolicy
{
    private final double seconds;
    private final long nanos;

    /** @param seconds seconds between cuts, positive. */
    public EverySeconds(final double seconds)
    {
        if (!(seconds > 0 && seconds < Double.POSITIVE_INFINITY))
        {
            throw new IllegalArgumentException("seconds between checkpoints must be positive, got " + seconds);
        }
        this.seconds = seconds;
        this.nanos = (long)(seconds * 1e9);
    }

    @Override
    public boolean due(final long tasksSinceCut, final long nanosSinceCut)
    {
        return nanosSinceCut >= nanos;
    }

    @Override
    public void committed(final CheckpointCost cost)
    {
        // A fixed interval learns nothing from costs.
    }

    @Override
    public String describe()
    {
        return "every " + (seconds == Math.rint(seconds) ? Long.toString((long)seconds) : Double.toString(seconds)) +
            " s";
    }
}
