package dev.spillway.resilience.buddy;

import dev.spillway.rdma.Message;
import dev.spillway.rdma.Transport;
import dev.spillway.rdma.TransportTimeoutException;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The copy's waits, cut short when the buddy's keeper says on {@link BuddyWire#STOPPED_TAG} that it stopped keeping
 * this rank's copies for a reason of its own (its partner's loss and its own close stop it silently): a send, a credit
 * or an answer it will never take or give would otherwise be waited for until the job ends. Once stopped, every wait
 * fails at once, naming the keeper's reason. The receive of the keeper's word is posted again, after a timeout, only
 * as a wait starts; UCX keeps a message that came meanwhile for it. One thread uses a watch; {@link #NONE}, which
 * never hears anything, any number.
 */
final class KeeperWatch
{
    /** Watches nothing: for a copy served back, which no keeper takes. */
    static final KeeperWatch NONE = new KeeperWatch(null, -1);

    private final Transport transport;
    private final int buddy;
    private final ByteBuffer reason;
    private CompletableFuture<Message> stop;

    /** Posts the receive of the keeper's word at once. */
    KeeperWatch(final Transport transport, final int buddy)
    {
        this.transport = transport;
        this.buddy = buddy;
        this.reason = transport == null ? null : ByteBuffer.allocateDirect(BuddyWire.FIELDS_BYTES);
        this.stop = transport == null ? new CompletableFuture<>() : post();
    }

    /**
     * Waits for {@code op}, unless the keeper stopped before it completed.
     *
     * @return op's result.
     * @throws RuntimeException      op's failure, as it failed (a {@link TransportTimeoutException} when it timed out).
     * @throws IllegalStateException once the keeper stopped: "buddy rank b stopped keeping ...", with its reason.
     */
    <T> T await(final CompletableFuture<T> op) throws InterruptedException
    {
        while (!op.isDone())
        {
            check();
            try
            {
                CompletableFuture.anyOf(op, stop).get();
            }
            catch (final ExecutionException e)
            {
                // Whichever failed is looked at below.
            }
            if (stopped())
            {
                continue;
            }
            if (stop.isCompletedExceptionally())
            {
                // A timeout posts the receive again. Any other failure (the buddy lost, this rank closed) is op's
                // too, and ends the run's copies: the watch stops listening.
                stop = timedOut(stop) ? post() : new CompletableFuture<>();
            }
        }
        try
        {
            return op.get();
        }
        catch (final ExecutionException e)
        {
            throw e.getCause() instanceof RuntimeException re ? re :
                new IllegalStateException(String.valueOf(e.getCause()), e.getCause());
        }
    }

    /** @return whether the keeper said it stopped. */
    boolean stopped()
    {
        return stop.isDone() && !stop.isCompletedExceptionally();
    }

    /** @throws IllegalStateException once the keeper said it stopped, naming why. */
    void check()
    {
        if (stopped())
        {
            final ByteBuffer text = reason.duplicate().limit(stop.join().length()).position(0);
            throw new IllegalStateException(BuddyWire.rest(text));
        }
    }

    private CompletableFuture<Message> post()
    {
        return transport.receive(buddy, BuddyWire.STOPPED_TAG, reason.clear());
    }

    private static boolean timedOut(final CompletableFuture<Message> stop)
    {
        try
        {
            stop.join();
            return false;
        }
        catch (final RuntimeException e)
        {
            return e.getCause() instanceof TransportTimeoutException;
        }
    }
}
