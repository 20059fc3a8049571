package dev.spillway.internal;

import dev.spillway.Acquired;
import dev.spillway.Data;
import dev.spillway.StallException;
import dev.spillway.TaskContext;
import dev.spillway.TaskFailedException;
import dev.spillway.spi.AsyncTaskBody;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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

    /**
     * Caller side: waits until the acquire task has started, so the buffer is set.
     *
     * @param done       the acquire task's completion, which ends early only if the task fails.
     * @param checkFatal throws if the runtime stopped on an internal error.
     * @throws TaskFailedException as the acquire task failed.
     * @throws StallException      if the thread is interrupted; the view is then released.
     */
    void awaitStart(final CompletableFuture<Void> done, final Runnable checkFatal)
    {
        while (!started())
        {
            checkFatal.run();
            try
            {
                done.get(10, TimeUnit.MILLISECONDS);
            }
            catch (final TimeoutException e)
            {
                continue;
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                close();
                throw new StallException("interrupted while acquiring '" + data.tag() + "'");
            }
            catch (final ExecutionException e)
            {
                throw (TaskFailedException)e.getCause();
            }
        }
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
