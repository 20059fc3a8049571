package dev.spillway.internal;

import dev.spillway.Data;
import dev.spillway.Privilege;
import dev.spillway.PrivilegeViolationException;
import dev.spillway.TaskContext;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** The view a running task has of its objects: one per worker, rebound for each task, and one per asynchronous task. */
final class TaskContextImpl implements TaskContext
{
    private TaskRecord task;

    void bind(final TaskRecord task)
    {
        this.task = task;
    }

    @Override
    public ByteBuffer buffer(final Data data)
    {
        final DataRef[] refs = task.refs;
        for (int i = 0; i < refs.length; i++)
        {
            if (refs[i] == data)
            {
                final ByteBuffer b = refs[i].object.buffer().buffer();
                final ByteBuffer view = task.privileges[i] == Privilege.READ ? b.asReadOnlyBuffer() : b.duplicate();
                return view.limit(data.size()).order(ByteOrder.nativeOrder());
            }
        }
        throw new PrivilegeViolationException("task '" + task.name + "' touched '" + data.tag() +
            "', which it did not declare; declare every object with read/write/readWrite/scratch");
    }

    @Override
    public String taskName()
    {
        return task.name;
    }
}
