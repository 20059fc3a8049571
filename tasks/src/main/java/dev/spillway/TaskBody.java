package dev.spillway;

/** The code of a task. It runs on a worker once every object it declared is in DRAM. */
@FunctionalInterface
public interface TaskBody
{
    /**
     * @param ctx access to the declared objects' buffers.
     * @throws Exception any failure; it reaches the task's waiters wrapped in a {@link TaskFailedException}.
     */
    void run(TaskContext ctx) throws Exception;
}
