package dev.spillway.spi;

import dev.spillway.TaskBody;
import dev.spillway.TaskContext;

import java.util.concurrent.CompletableFuture;

/**
 * A task body that starts work completing elsewhere, such as a transfer to another rank. The worker only starts it;
 * the task keeps its objects resident and finishes when the future does, so no worker waits on the network.
 * Used by the distributed runtime.
 */
public interface AsyncTaskBody extends TaskBody
{
    /**
     * @param ctx the declared objects' buffers, valid until the future completes.
     * @return completes when the task's work is done; exceptionally to fail the task.
     */
    CompletableFuture<?> start(TaskContext ctx) throws Exception;

    /**
     * Called on the IO thread once the task's dependencies are met.
     *
     * @return a future that must complete before the task is admitted (takes DRAM), or null for none.
     */
    default CompletableFuture<?> gate()
    {
        return null;
    }

    /** @return what {@link #gate()} waits for, for wait reports. */
    default String gateReason()
    {
        return "an outside event";
    }

    /** @return what the future {@link #start} returned waits for, for wait reports. */
    default String runningReason()
    {
        return "its outside work";
    }

    @Override
    default void run(final TaskContext ctx) throws Exception
    {
        start(ctx).get();
    }
}
