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
    private final ArrayList<DataRef> refs = new ArrayList<>(4);
    private final ArrayList<Privilege> privileges = new ArrayList<>(4);
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
        return engine.submit(name, body, refs.toArray(new DataRef[0]), privileges.toArray(new Privilege[0]), priority);
    }
}
