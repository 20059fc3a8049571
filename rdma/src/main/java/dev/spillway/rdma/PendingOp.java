package dev.spillway.rdma;

import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.ucp.UcpRequest;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * One operation waiting for UCX: its future, deadline and the buffers UCX may still touch. UCX calls it back on the
 * agent thread; {@link PendingOperations} tracks it until then, or until it fails it first.
 *
 * @param <T> the future's result.
 */
final class PendingOp<T> extends UcxCallback
{
    /** Maps a completed request to the operation's result. */
    @FunctionalInterface
    interface Result<T>
    {
        T of(UcpRequest request);
    }

    /** Decides whether a completed request is the operation's result, or restarts the operation instead. */
    @FunctionalInterface
    interface Retry
    {
        /** @return true when it started the operation again: the completed request is not its result. */
        boolean again(UcpRequest request);
    }

    /** The peer the operation depends on, or {@link Transport#ANY_SOURCE}. */
    final int rank;
    /** The incarnation of {@link #rank} that the operation addresses (any when there is no one peer). */
    final int incarnation;
    /** The operation, for messages. */
    final String what;
    final CompletableFuture<T> future;
    /** {@link System#nanoTime()} after which the operation fails with a timeout. */
    final long deadline;
    private final PendingOperations owner;
    private final ByteBuffer small;
    @SuppressWarnings("unused") // only held: reachable while UCX may still use it
    private final Object keepAlive;
    private final Result<T> result;
    /** The UCX request, once started. */
    UcpRequest request;
    /** A receive's buffer capacity, for the message when a message is truncated. */
    int capacity;
    private Retry retry;
    private boolean cancelWhenAbandoned;
    private boolean released;

    /**
     * @param small a pooled buffer to give back once UCX is done, or null.
     * @param keepAlive buffers UCX reads or writes, kept reachable until it is done.
     */
    PendingOp(final PendingOperations owner, final int rank, final int incarnation, final String what,
        final CompletableFuture<T> future, final long deadline, final ByteBuffer small, final Object keepAlive,
        final Result<T> result)
    {
        this.owner = owner;
        this.rank = rank;
        this.incarnation = incarnation;
        this.what = what;
        this.future = future;
        this.deadline = deadline;
        this.small = small;
        this.keepAlive = keepAlive;
        this.result = result;
    }

    /** Cancels the UCX request when the operation is abandoned (receives: nothing else would end them). */
    void cancelWhenAbandoned()
    {
        cancelWhenAbandoned = true;
    }

    /** @param retry asked first on each success; the operation stays pending, with its deadline, when it retries. */
    void retry(final Retry retry)
    {
        this.retry = retry;
    }

    @Override
    public void onSuccess(final UcpRequest r)
    {
        if (retry != null && !future.isDone() && retry.again(r))
        {
            return;
        }
        owner.untrack(this);
        completeInline(r);
    }

    /** Completes an operation that UCX ended inside the call that started it, on that thread: never tracked. */
    void completeInline(final UcpRequest r)
    {
        release();
        if (!future.isDone())
        {
            try
            {
                future.complete(result.of(r));
            }
            catch (final RuntimeException ex)
            {
                future.completeExceptionally(ex);
            }
        }
    }

    @Override
    public void onError(final int status, final String message)
    {
        owner.untrack(this);
        release();
        if (!future.isDone())
        {
            future.completeExceptionally(owner.failure(this, status, message));
        }
    }

    /** Fails the future now; buffers stay reserved until UCX reports the request done. */
    void abandon(final TransportException error)
    {
        future.completeExceptionally(error);
        if (cancelWhenAbandoned && request != null && !request.isCompleted())
        {
            owner.cancel(request);
        }
    }

    /** Gives the small buffer back, once. */
    void release()
    {
        if (!released)
        {
            released = true;
            if (small != null)
            {
                owner.smallBuffers().release(small);
            }
        }
    }
}
