package dev.spillway.rdma;

import java.io.EOFException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Detects lost peers over the control connections left by the rendezvous, a star around rank 0. Every rank sends
 * a heartbeat on each connection four times per failure timeout; a reader thread per connection declares its peer
 * lost when the connection closes (process death: at once), stays silent for the failure timeout, or the peer says
 * goodbye (it closed its transport). Rank 0 relays every loss to the other ranks, which trust its reports; losing
 * rank 0 loses the star.
 *
 * <p>Each loss is declared once, by {@link #declareLost} (which also takes suspicions from elsewhere), logged (a
 * goodbye at DEBUG, any other loss at WARNING) and told to the {@link PeerLossListener} from the thread that
 * declared it; {@link #lostReason} says what was declared.
 *
 * <p>Wire: one type byte, {@link #HEARTBEAT}, {@link #GOODBYE} or {@link #LOST}; a loss report adds the lost rank
 * ({@code int}) and the reason ({@code writeUTF}).
 */
final class FailureDetector implements AutoCloseable
{
    /** Message type: the sender is alive. */
    static final byte HEARTBEAT = 1;
    /** Message type, from rank 0 only: a rank was lost; followed by the rank and the reason. */
    static final byte LOST = 2;
    /** Message type: the sender closed its transport. */
    static final byte GOODBYE = 3;
    /** The loss reason of a peer that said goodbye. */
    private static final String GOODBYE_REASON = "it closed its transport";
    private static final int HEARTBEATS_PER_TIMEOUT = 4;
    private static final System.Logger LOG = System.getLogger(FailureDetector.class.getName());

    private final int rank;
    private final ControlConnection[] connections;
    private final AtomicReferenceArray<String> lost;
    private final PeerLossListener listener;
    private final long failureMs;
    private final long heartbeatMs;
    private final Thread heartbeat;
    private volatile boolean closing;

    /**
     * @param rank this rank.
     * @param connections the control connections by peer rank (null where there is none: a star).
     * @param failureTimeout silence after which a peer is lost.
     * @param listener told of each lost peer, once.
     */
    FailureDetector(final int rank, final ControlConnection[] connections, final Duration failureTimeout,
        final PeerLossListener listener)
    {
        this.rank = rank;
        this.connections = connections;
        this.lost = new AtomicReferenceArray<>(connections.length);
        this.listener = listener;
        this.failureMs = failureTimeout.toMillis();
        this.heartbeatMs = Math.max(1, failureMs / HEARTBEATS_PER_TIMEOUT);
        this.heartbeat = new Thread(this::beat, "spillway-rdma-heartbeat-" + rank);
        heartbeat.setDaemon(true);
    }

    /** Starts a reader per connection and the heartbeat. */
    void start()
    {
        for (final ControlConnection connection : connections)
        {
            if (connection == null)
            {
                continue;
            }
            try
            {
                connection.socket.setSoTimeout((int)Math.min(Integer.MAX_VALUE, failureMs));
            }
            catch (final IOException ex)
            {
                declareLost(connection.rank, "control connection unusable: " + ex);
                continue;
            }
            final Thread reader = new Thread(() -> read(connection),
                "spillway-rdma-control-" + rank + "-" + connection.rank);
            reader.setDaemon(true);
            reader.start();
        }
        heartbeat.start();
    }

    /** @return why {@code peer} was declared lost, or null. */
    String lostReason(final int peer)
    {
        return lost.get(peer);
    }

    /**
     * Declares {@code who} lost, once, and logs it: rank 0 relays it to the others, then the listener is told.
     * Ignored for this rank, unknown ranks, a peer lost before, and once closing.
     */
    void declareLost(final int who, final String reason)
    {
        declareLost(who, reason, Level.WARNING);
    }

    /** @param level of the log line: a goodbye, even relayed, is routine. */
    private void declareLost(final int who, final String reason, final Level level)
    {
        if (declare(who, reason))
        {
            LOG.log(level, () -> "spillway-rdma: rank " + rank + " lost rank " + who + ": " + reason);
        }
    }

    /** @return true when this call declared {@code who} lost. */
    private boolean declare(final int who, final String reason)
    {
        if (closing || who == rank || who < 0 || who >= lost.length() || !lost.compareAndSet(who, null, reason))
        {
            return false;
        }
        if (rank == 0)
        {
            for (final ControlConnection connection : connections)
            {
                if (connection != null && connection.rank != who)
                {
                    connection.sendQuietly(out ->
                    {
                        out.writeByte(LOST);
                        out.writeInt(who);
                        out.writeUTF(reason);
                    });
                }
            }
        }
        listener.lost(who, reason);
        return true;
    }

    private void read(final ControlConnection connection)
    {
        final long timeoutMs;
        try
        {
            timeoutMs = connection.socket.getSoTimeout();
        }
        catch (final IOException ex)
        {
            declareLost(connection.rank, "control connection unusable: " + ex);
            return;
        }
        try
        {
            while (!closing)
            {
                final byte type = connection.in.readByte();
                if (type == LOST)
                {
                    final int who = connection.in.readInt();
                    final String report = connection.in.readUTF();
                    declareLost(who, "reported by rank 0: " + report, GOODBYE_REASON.equals(report) ? Level.DEBUG :
                        Level.WARNING);
                }
                else if (type == GOODBYE)
                {
                    declareLost(connection.rank, GOODBYE_REASON, Level.DEBUG);
                    return;
                }
            }
        }
        catch (final SocketTimeoutException ex)
        {
            declareLost(connection.rank, "no heartbeat for " + timeoutMs + " ms");
        }
        catch (final IOException ex)
        {
            if (!closing)
            {
                declareLost(connection.rank, "control connection closed (" +
                    (ex instanceof EOFException ? "end of stream" : ex.getMessage()) + "): process died?");
            }
        }
        finally
        {
            connection.closeQuietly();
        }
    }

    private void beat()
    {
        while (!closing)
        {
            for (final ControlConnection connection : connections)
            {
                if (connection != null && lost.get(connection.rank) == null)
                {
                    connection.sendQuietly(out -> out.writeByte(HEARTBEAT));
                }
            }
            try
            {
                TimeUnit.MILLISECONDS.sleep(heartbeatMs);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
        }
    }

    /** Says goodbye to every connected peer and closes the connections; idempotent. */
    @Override
    public void close()
    {
        if (closing)
        {
            return;
        }
        closing = true;
        heartbeat.interrupt();
        for (final ControlConnection connection : connections)
        {
            if (connection != null)
            {
                connection.sendQuietly(out -> out.writeByte(GOODBYE));
                connection.closeQuietly();
            }
        }
    }
}
