package dev.spillway.rdma;

import org.openucx.jucx.UcxCallback;
import org.openucx.jucx.ucp.UcpRequest;

import java.util.function.Supplier;

/**
 * A flush issued on a caller's thread. When UCX completes it inside the call (shared memory: the puts completed
 * inline), it ends on that thread with no hand-off; otherwise UCX calls it back on the agent thread, which ends its
 * {@link PendingOp}. A failure reported inside the call is handed to the agent, which maps a peer failure to a loss.
 * One caller thread uses it.
 */
final class CallerFlush extends UcxCallback
{
    private final PendingOp<Void> op;
    private final Thread caller = Thread.currentThread();
    private boolean issuing;
    private boolean endedOnCaller;
    private boolean failed;
    private int status;
    private String message;
    private RuntimeException startFailure;
    private UcpRequest completed;

    CallerFlush(final PendingOp<Void> op)
    {
        this.op = op;
    }

    /** Starts the flush; a failure to start ends it on the caller. */
    void start(final Supplier<UcpRequest> flush)
    {
        issuing = true;
        try
        {
            op.request = flush.get();
        }
        catch (final RuntimeException ex)
        {
            if (!endedOnCaller)
            {
                endedOnCaller = true;
                startFailure = ex;
            }
        }
        finally
        {
            issuing = false;
        }
    }

    /**
     * Hands the agent what it must do: track the flush when UCX did not end it (its deadline, its peer's loss), or
     * map a failure UCX reported inside the call. Under the caller's read lock, so before a close drains the agent.
     */
    void handOver(final UcxAgent agent, final PendingOperations pending)
    {
        if (!endedOnCaller)
        {
            agent.submit(() -> pending.trackUnlessDone(op));
        }
        else if (failed)
        {
            agent.submit(() -> op.onError(status, message));
        }
    }

    /** Completes the operation's future when it ended on the caller; outside any lock, since it runs callbacks. */
    void completeOnCaller()
    {
        if (!endedOnCaller || failed)
        {
            return;
        }
        if (startFailure != null)
        {
            op.future.completeExceptionally(new TransportException(op.what + " failed to start: " + startFailure,
                startFailure));
        }
        else
        {
            op.completeInline(completed);
        }
    }

    @Override
    public void onSuccess(final UcpRequest request)
    {
        if (inside())
        {
            endedOnCaller = true;
            completed = request;
        }
        else
        {
            op.onSuccess(request);
        }
    }

    @Override
    public void onError(final int ucsStatus, final String errorMessage)
    {
        if (inside())
        {
            endedOnCaller = true;
            failed = true;
            status = ucsStatus;
            message = errorMessage;
        }
        else
        {
            op.onError(ucsStatus, errorMessage);
        }
    }

    /** @return whether UCX calls back from inside {@link #start} (JUCX does so on the calling thread). */
    private boolean inside()
    {
        return issuing && Thread.currentThread() == caller;
    }
}
