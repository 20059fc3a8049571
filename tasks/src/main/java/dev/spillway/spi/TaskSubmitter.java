package dev.spillway.spi;

import dev.spillway.Data;
import dev.spillway.Privilege;
import dev.spillway.TaskBody;
import dev.spillway.TaskHandle;

/** Where a checked task declaration goes: one runtime, or the ranks of a distributed one. */
@FunctionalInterface
public interface TaskSubmitter
{
    /**
     * @param name       the task's name, not empty.
     * @param body       what it runs, not null.
     * @param data       the declared objects, each declared by a runtime, none twice (the array may be narrower).
     * @param privileges one per object.
     * @param priority   for IO policy {@code p}.
     * @return the submitted task.
     */
    TaskHandle submit(String name, TaskBody body, Data[] data, Privilege[] privileges, int priority);
}
