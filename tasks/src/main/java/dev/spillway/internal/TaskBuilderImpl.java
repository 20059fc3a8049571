package dev.spillway.internal;

import dev.spillway.Data;
import dev.spillway.Privilege;
import dev.spillway.TaskBody;
import dev.spillway.TaskBuilder;
import dev.spillway.TaskHandle;

import java.util.ArrayList;

final class TaskBuilderImpl implements TaskBuilder
{
    private final Engine engine;
    private final String name;
    private static final DataRef[] NO_REFS = {};
    private static final Privilege[] NO_PRIVILEGES = {};

    private ArrayList<DataRef> refs;
    private ArrayList<Privilege> privileges;
    private int priority;

    TaskBuilderImpl(final Engine engine, final String name)
    {
        if (name == null || name.isEmpty())
        {
            throw new IllegalArgumentException("a task needs a non-empty name");
        }
        this.engine = engine;
        this.name = name;
    }

    @Override
    public TaskBuilder access(final Data data, final Privilege privilege)
    {
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
        return refs == null ? engine.submit(name, body, NO_REFS, NO_PRIVILEGES, priority) :
            engine.submit(name, body, refs.toArray(NO_REFS), privileges.toArray(NO_PRIVILEGES), priority);
    }
}
