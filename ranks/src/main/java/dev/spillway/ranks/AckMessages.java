package dev.spillway.ranks;

import dev.spillway.rdma.Header;
import dev.spillway.rdma.Message;
import dev.spillway.rdma.Transport;

import java.nio.ByteBuffer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import static java.lang.System.Logger.Level.DEBUG;
import static java.lang.System.Logger.Level.WARNING;

/**
 * The protocol's acknowledgements: a receiver tells the sender the ssn of a transfer it took and its epoch at the
 * reception, both in the header ({@code seq}, {@code epoch}). One standing receive per peer hands them to the
 * {@link RankProtocol} as they come.
 */
final class AckMessages
{
    static final int ACK_TAG = DistributedSpillway.FIRST_DATA_TAG - 8;
    private static final System.Logger LOG = System.getLogger(AckMessages.class.getName());
    private static final int BYTES = 8;
    /** Every ack's payload: its values travel in the header, so these bytes are never written or read. */
    private static final ByteBuffer PAYLOAD = ByteBuffer.allocateDirect(BYTES);

    private final Transport transport;
    private final RankProtocol protocol;
    private final BooleanSupplier stopped;
    private final Consumer<String> failed;
    private final PeerSessions sessions;

    /**
     * @param stopped true once no ack is to be handled any more.
     * @param failed  told why the protocol cannot go on (it refused an ack): the job must restart.
     */
    AckMessages(final Transport transport, final RankProtocol protocol, final PeerSessions sessions,
        final BooleanSupplier stopped, final Consumer<String> failed)
    {
        this.sessions = sessions;
        this.failed = failed;
        this.transport = transport;
        this.protocol = protocol;
        this.stopped = stopped;
    }

    /** Starts taking acks from every other rank. */
    void start()
    {
        for (int r = 0; r < transport.size(); r++)
        {
            if (r != transport.rank())
            {
                final int source = r;
                StandingReceive.start(transport, sessions, source, ACK_TAG, ByteBuffer.allocateDirect(BYTES), stopped,
                    Runnable::run, (m, buffer) -> taken(source, m));
            }
        }
    }

    /** Acknowledges to {@code source} the transfers {@code acks} name; a failure (a lost peer) is left to loss handling. */
    void send(final int source, final Iterable<RankProtocol.Ack> acks)
    {
        if (stopped.getAsBoolean())
        {
            return;
        }
        for (final RankProtocol.Ack ack : acks)
        {
            transport.send(source, new Header(Header.NO_RANK, ACK_TAG, ack.epoch(), 0, ack.ssn()), PAYLOAD)
                .whenComplete((ignored, failure) ->
                {
                    if (failure != null)
                    {
                        LOG.log(DEBUG, "spillway: ack of transfer " + ack.ssn() + " to rank " + source + " failed: " +
                            failure);
                    }
                });
        }
    }

    /** @return false when the protocol refused the ack: the job must restart, and no further ack is taken. */
    private boolean taken(final int source, final Message m)
    {
        final RankProtocol.Ack ack = new RankProtocol.Ack(m.header().seq(), m.header().epoch());
        try
        {
            protocol.acked(source, ack);
            return true;
        }
        catch (final RuntimeException refused)
        {
            LOG.log(WARNING, "spillway: rank " + transport.rank() + " refused " + ack + " from rank " + source + ": " +
                refused.getMessage());
            failed.accept("its message-logging protocol refused " + ack + " from rank " + source + " (" +
                refused.getMessage() + ")");
            return false;
        }
    }
}
