package dev.spillway.ranks;

import dev.spillway.TaskHandle;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** The handle of a task that runs on another rank: nothing to wait for here. */
record ElsewhereHandle(String name, int rank) implements TaskHandle
{
    @Override
    public long seq()
    {
        return -1;
    }

    @Override
    public boolean isDone()
    {
        return true;
    }

    @Override
    public void join()
    {
    }

    @Override
    public void join(final Duration timeout)
    {
    }

    @Override
    public CompletableFuture<Void> toCompletableFuture()
    {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public String waitReason()
    {
        return "runs on rank " + rank;
    }
}
