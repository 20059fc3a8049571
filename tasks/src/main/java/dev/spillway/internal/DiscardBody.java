package dev.spillway.internal;

import dev.spillway.TaskBody;
import dev.spillway.TaskContext;

/** The body of a discard task: never run on a worker, the IO thread drops the object instead. */
final class DiscardBody implements TaskBody
{
    static final DiscardBody INSTANCE = new DiscardBody();

    private DiscardBody()
    {
    }

    @Override
    public void run(final TaskContext ctx)
    {
        throw new IllegalStateException("a discard task is carried out by the IO thread");
    }
}
