package dev.spillway;

/** Declares one task's accesses and priority, then submits it. Not thread-safe; use one builder per task. */
public interface TaskBuilder
{
    /** Declares {@code data} with {@code privilege}; declaring one object twice is an error. */
    TaskBuilder access(Data data, Privilege privilege);

    /** Declares each of {@code data} as {@link Privilege#READ}. */
    default TaskBuilder read(final Data... data)
    {
        for (final Data d : data)
        {
            access(d, Privilege.READ);
        }
        return this;
    }

    /** Declares each of {@code data} as {@link Privilege#WRITE}. */
    default TaskBuilder write(final Data... data)
    {
        for (final Data d : data)
        {
            access(d, Privilege.WRITE);
        }
        return this;
    }

    /** Declares each of {@code data} as {@link Privilege#READ_WRITE}. */
    default TaskBuilder readWrite(final Data... data)
    {
        for (final Data d : data)
        {
            access(d, Privilege.READ_WRITE);
        }
        return this;
    }

    /** Declares each of {@code data} as {@link Privilege#SCRATCH}. */
    default TaskBuilder scratch(final Data... data)
    {
        for (final Data d : data)
        {
            access(d, Privilege.SCRATCH);
        }
        return this;
    }

    /** Sets the priority used by IO policy {@code p}; higher runs first; default 0. */
    TaskBuilder priority(int priority);

    /**
     * Submits the task. Dependencies on earlier submissions follow from the declared privileges.
     *
     * @throws WorkingSetTooLargeException if the declared objects can never fit the DRAM budget together.
     * @throws DataNotWrittenException     if the task reads an object no earlier task wrote.
     */
    TaskHandle submit(TaskBody body);
}
