package dev.spillway.internal;

import dev.spillway.Acquired;
import dev.spillway.Data;
import dev.spillway.TaskContext;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CompletableFuture;

/**
 * The body of an acquire task and the caller's view of it: the task starts once every earlier writer is done and the
 * object is resident, hands its read-only buffer to the caller, and finishes when the caller closes the view.
 */
final class AcquiredView implements AsyncTaskBody, Acquired
{
    private final Data data;
    private final CompletableFuture<Void> released = new CompletableFuture<>();
    private volatile ByteBuffer buffer;

    AcquiredView(final Data data)
    {
        this.data = data;
    }

    @Override
    public CompletableFuture<?> start(final TaskContext ctx)
    {
        buffer = ctx.buffer(data);
        return released;
    }

    /** @return whether the task has started and the buffer is set. */
    boolean started()
    {
        return buffer != null;
    }

    @Override
    public Data data()
    {
        return data;
    }

    @Override
    public ByteBuffer buffer()
    {
        if (released.isDone())
        {
            throw new IllegalStateException("'" + data.tag() + "' was released: acquire it again");
        }
        return buffer.duplicate().order(ByteOrder.nativeOrder());
    }

    @Override
    public void close()
    {
        released.complete(null);
    }
}
