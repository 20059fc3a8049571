package dev.spillway.ranks;

import dev.spillway.rdma.Header;
import dev.spillway.rdma.Transport;

import java.nio.ByteBuffer;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

import static java.lang.System.Logger.Level.DEBUG;
import static java.lang.System.Logger.Level.WARNING;

/**
 * The small messages of the checkpoint protocol: one number each, carried in the header's {@code seq}, handled in
 * order on one executor. Tags sit just below {@link DistributedSpillway#FIRST_DATA_TAG}.
 */
final class CutMessages
{
    static final int COMMITTED_TAG = DistributedSpillway.FIRST_DATA_TAG - 2;
    static final int GLOBAL_TAG = DistributedSpillway.FIRST_DATA_TAG - 3;
    static final int RESTORE_TAG = DistributedSpillway.FIRST_DATA_TAG - 4;
    static final int PROPOSE_TAG = DistributedSpillway.FIRST_DATA_TAG - 5;
    static final int COUNT_TAG = DistributedSpillway.FIRST_DATA_TAG - 6;
    static final int DECIDE_TAG = DistributedSpillway.FIRST_DATA_TAG - 7;
    static final int WORD = 8;
    private static final System.Logger LOG = System.getLogger(CutMessages.class.getName());
    /** Every send's payload: the value travels in the header, so these bytes are never written or read. */
    private static final ByteBuffer PAYLOAD = ByteBuffer.allocateDirect(WORD);

    private final Transport transport;
    private final Executor executor;
    private final BooleanSupplier stopped;
    private final Consumer<String> failed;
    /** With a message-logging protocol: a lost peer's listener is posted again once it rejoins; else null. */
    private PeerSessions sessions;

    /**
     * @param stopped true once no message is to be handled any more.
     * @param failed  told why the protocol cannot go on (a handler threw): the job must restart.
     */
    CutMessages(final Transport transport, final Executor executor, final BooleanSupplier stopped,
        final Consumer<String> failed)
    {
        this.transport = transport;
        this.executor = executor;
        this.stopped = stopped;
        this.failed = failed;
    }

    /**
     * Runs {@code step} of the protocol; a failure is logged and stops the job for a restart, unless the protocol
     * stopped meanwhile (a closing runtime interrupts a step that holds admission).
     */
    void guarded(final String what, final Runnable step)
    {
        try
        {
            step.run();
        }
        catch (final RuntimeException e)
        {
            if (stopped.getAsBoolean())
            {
                LOG.log(DEBUG, "spillway: checkpoint protocol: " + what + " ended as it stopped: " + e);
                return;
            }
            LOG.log(WARNING, "spillway: checkpoint protocol: " + what + " failed: " + e);
            failed.accept("its checkpoint protocol failed (" + what + ": " + e.getMessage() + ")");
        }
    }

    /** Listeners outlive a peer's loss: each is posted again once the peer rejoined. */
    void outliveLosses(final PeerSessions sessions)
    {
        this.sessions = sessions;
    }

    Transport transport()
    {
        return transport;
    }

    /** Sends {@code value} to {@code target}; a failure (a lost peer) is left to the loss handling. */
    void send(final int target, final int tag, final long value)
    {
        transport.send(target, new Header(Header.NO_RANK, tag, 0, 0, value), PAYLOAD)
            .whenComplete((ignored, failure) ->
            {
                if (failure != null && !stopped.getAsBoolean())
                {
                    LOG.log(DEBUG, "spillway: checkpoint message to rank " + target + " failed: " + failure);
                }
            });
    }

    /** Sends {@code value} to every rank but 0. */
    void sendToOthers(final int tag, final long value)
    {
        for (int r = 1; r < transport.size(); r++)
        {
            send(r, tag, value);
        }
    }

    /** Handles every message with {@code tag} from {@code source} on the executor, in order, until stopped. */
    void listen(final int source, final int tag, final LongConsumer handler)
    {
        listen(source, tag, (incarnation, value) -> handler.accept(value));
    }

    /** As {@link #listen(int, int, LongConsumer)}, telling the handler the sender's incarnation too. */
    void listen(final int source, final int tag, final StampedHandler handler)
    {
        // One buffer per listener: its messages are received one at a time, and only their headers are read.
        StandingReceive.start(transport, sessions, source, tag, ByteBuffer.allocateDirect(WORD), stopped, executor,
            (m, buffer) ->
            {
                guarded("handling message " + tag + " from rank " + source,
                    () -> handler.accept(m.header().incarnation(), m.header().seq()));
                return true;
            });
    }

    /** A message's value and the incarnation of the rank that sent it. */
    @FunctionalInterface
    interface StampedHandler
    {
        void accept(int incarnation, long value);
    }
}
