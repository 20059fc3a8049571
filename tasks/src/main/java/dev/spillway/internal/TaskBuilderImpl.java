package dev.spillway.internal;

import dev.spillway.Data;
import dev.spillway.Privilege;
import dev.spillway.TaskBody;
import dev.spillway.TaskBuilder;
import dev.spillway.TaskHandle;
import dev.spillway.spi.TaskSubmitter;

import java.util.ArrayList;

/** Collects one task's declarations, checked, and hands them to a {@link TaskSubmitter}. Internal. */
public final class TaskBuilderImpl implements TaskBuilder
{
    private static final DataRef[] NO_REFS = {};
    private static final Privilege[] NO_PRIVILEGES = {};

    private final TaskSubmitter submitter;
    private final String name;
    private ArrayList<DataRef> refs;
    private ArrayList<Privilege> privileges;
    private int priority;

    /** @param name the task's name, not empty. */
    public TaskBuilderImpl(final String name, final TaskSubmitter submitter)
    {
        if (name == null || name.isEmpty())
        {
            throw new IllegalArgumentException("a task needs a non-empty name");
        }
        this.submitter = submitter;
        this.name = name;
    }

    @Override
    public TaskBuilder access(final Data data, final Privilege privilege)
    {
        if (data == null)
        {
            throw new NullPointerException("task '" + name + "': data is null");
        }
        if (privilege == null)
        {
            throw new NullPointerException("task '" + name + "': privilege of '" + data.tag() + "' is null");
        }
        if (!(data instanceof DataRef ref))
        {
            throw new IllegalArgumentException("task '" + name + "': " + data + " was not declared by Spillway.data");
        }
        if (refs == null)
        {
            refs = new ArrayList<>(4);
            privileges = new ArrayList<>(4);
        }
        if (refs.contains(ref))
        {
            throw new IllegalArgumentException("task '" + name + "' declares '" + data.tag() +
                "' twice; declare it once with the strongest privilege (e.g. READ_WRITE)");
        }
        refs.add(ref);
        privileges.add(privilege);
        return this;
    }

    @Override
    public TaskBuilder priority(final int priority)
    {
        this.priority = priority;
        return this;
    }

    @Override
    public TaskHandle submit(final TaskBody body)
    {
        if (body == null)
        {
            throw new NullPointerException("task '" + name + "': body is null");
        }
        return refs == null ? submitter.submit(name, body, NO_REFS, NO_PRIVILEGES, priority) :
            submitter.submit(name, body, refs.toArray(NO_REFS), privileges.toArray(NO_PRIVILEGES), priority);
    }
}
