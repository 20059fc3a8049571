package dev.spillway.spi;

import dev.spillway.TaskBuilder;
import dev.spillway.internal.TaskBuilderImpl;

/** Task builders for runtimes built on {@link dev.spillway.Spillway}, such as the distributed one. */
public final class TaskDeclarations
{
    private TaskDeclarations()
    {
    }

    /**
     * @return a builder that checks every declaration (objects declared by a runtime, none twice, privileges and body
     *         not null) and hands the finished one to {@code submitter}.
     */
    public static TaskBuilder builder(final String name, final TaskSubmitter submitter)
    {
        return new TaskBuilderImpl(name, submitter);
    }
}
