package dev.spillway.resilience.interval;

import dev.spillway.checkpoint.CheckpointCost;
import dev.spillway.checkpoint.CheckpointPolicy;

/** A checkpoint after every {@code n} submitted tasks. */
public final class EveryTasks implements CheckpointPolicy
{
    private final long tasks;

    /** @param tasks tasks between cuts, at least 1. */
    public EveryTasks(final long tasks)
    {
        if (tasks < 1)
        {
            throw new IllegalArgumentException("tasks between checkpoints must be at least 1, got " + tasks);
        }
        this.tasks = tasks;
    }

    @Override
    public boolean due(final long tasksSinceCut, final long nanosSinceCut)
    {
        return tasksSinceCut >= tasks;
    }

    @Override
    public void committed(final CheckpointCost cost)
    {
        // A fixed interval learns nothing from costs.
    }

    @Override
    public String describe()
    {
        return "every " + tasks + " tasks";
    }
}
