package dev.spillway.ranks;

import dev.spillway.rdma.Message;
import dev.spillway.rdma.Transport;
import dev.spillway.rdma.TransportTimeoutException;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

/**
 * A receive of one tag from one peer that stands for the whole run, one message at a time into one buffer: posted
 * again after each message and each timeout and, with a message-logging protocol, to the peer's next incarnation
 * once a lost peer rejoined. It ends once stopped, when its handler says so, or on any other failure (the loss
 * handling deals with it).
 */
final class StandingReceive
{
    /** Takes one message, whose bytes are in the buffer until it returns. */
    interface Handler
    {
        /** @return whether to receive the next message. */
        boolean taken(Message message, ByteBuffer buffer);
    }

    private final Transport transport;
    private final PeerSessions sessions;
    private final int peer;
    private final int tag;
    private final ByteBuffer buffer;
    private final BooleanSupplier stopped;
    private final Executor executor;
    private final Handler handler;

    private StandingReceive(final Transport transport, final PeerSessions sessions, final int peer, final int tag,
        final ByteBuffer buffer, final BooleanSupplier stopped, final Executor executor, final Handler handler)
    {
        this.transport = transport;
        this.sessions = sessions;
        this.peer = peer;
        this.tag = tag;
        this.buffer = buffer;
        this.stopped = stopped;
        this.executor = executor;
        this.handler = handler;
    }

    /**
     * Starts receiving.
     *
     * @param sessions the protocol's peer sessions, whose rejoins repost the receive; null without a protocol.
     * @param executor where the handler runs ({@code Runnable::run}: on the transport's completing thread).
     */
    static void start(final Transport transport, final PeerSessions sessions, final int peer, final int tag,
        final ByteBuffer buffer, final BooleanSupplier stopped, final Executor executor, final Handler handler)
    {
        new StandingReceive(transport, sessions, peer, tag, buffer, stopped, executor, handler).post();
    }

    private void post()
    {
        final int incarnation = transport.incarnation(peer);
        transport.receive(peer, tag, buffer.clear()).whenCompleteAsync((Message m, Throwable e) ->
        {
            if (stopped.getAsBoolean())
            {
                return;
            }
            if (e == null)
            {
                if (handler.taken(m, buffer))
                {
                    post();
                }
                return;
            }
            final Throwable cause = unwrap(e);
            if (cause instanceof TransportTimeoutException)
            {
                post();
            }
            else if (sessions != null && PeerSessions.peerLost(cause, peer))
            {
                sessions.after(peer, incarnation).thenRun(this::post);
            }
        }, executor);
    }

    /** @return the cause of a {@link CompletionException}, else {@code e}. */
    static Throwable unwrap(final Throwable e)
    {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }
}
