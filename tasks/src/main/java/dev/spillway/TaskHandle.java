package dev.spillway;

import java.time.Duration;

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

    /** @return a one-line description of what the task is waiting for now, or how it ended. */
    String waitReason();
}
