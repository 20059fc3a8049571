package dev.spillway;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A submitted task, to wait on and to ask what it waits for. */
public interface TaskHandle
{
    /** @return the task's name as submitted. */
    String name();

    /** @return the submission sequence number, 0 for the first task of a runtime. */
    long seq();

    /** @return true once the task completed, failed or was cancelled. */
    boolean isDone();

    /**
     * Waits until the task is done.
     *
     * @throws TaskFailedException if the task (or a task whose output it needed) failed, or it was cancelled.
     */
    void join();

    /**
     * Waits at most {@code timeout}.
     *
     * @throws StallException      on timeout; its message says what the task was waiting for.
     * @throws TaskFailedException as for {@link #join()}.
     */
    void join(Duration timeout);

    /**
     * @return a future completed when the task is done: normally, or exceptionally with the
     *         {@link TaskFailedException} that {@link #join()} would throw. Completing the returned future does not
     *         affect the task.
     */
    CompletableFuture<Void> toCompletableFuture();

    /** @return a one-line description of what the task is waiting for now, or how it ended. */
    String waitReason();
}
