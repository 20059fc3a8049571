package dev.spillway.rdma;

import java.io.EOFException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Detects lost peers over the control connections left by the rendezvous, a star around rank 0, and keeps the
 * control plane's {@link Roster} (each rank's incarnation, loss and address). Every rank sends a heartbeat on each
 * connection four times per failure timeout; a reader thread per connection declares its peer lost when the
 * connection closes (process death: at once), stays silent for the failure timeout, or the peer says goodbye (it
 * closed its transport). Rank 0 relays every loss to the other ranks, which trust its reports; losing rank 0 loses
 * the star, and no rejoin can mend that.
 *
 * <p>Rank 0 also admits rejoins ({@link #admit}): a new incarnation of a lost rank gets the roster, its connection
 * replaces the lost one's, and every other rank is told its new incarnation and address. A declaration about an
 * incarnation that is no longer current (a late report, or a reader of a replaced connection) is ignored.
 *
 * <p>Each loss and each rejoin happens once, under this detector's lock (so that rank 0 relays them in the order they
 * happened), is logged (a goodbye at DEBUG, a rejoin at INFO, any other loss at WARNING) and told to the
 * {@link ControlPlane.Listener} from the thread that declared it.
 *
 * <p>Wire: one type byte, {@link #HEARTBEAT}, {@link #GOODBYE}, {@link #LOST} or {@link #REJOINED}; a loss report adds
 * the lost rank and incarnation ({@code int}s) and the reason ({@code writeUTF}); a rejoin report adds the rank and
 * its new incarnation ({@code int}s) and its address blob ({@link ControlConnection#writeBlob}).
 */
final class FailureDetector implements AutoCloseable
{
    /** Message type: the sender is alive. */
    static final byte HEARTBEAT = 1;
    /** Message type, from rank 0 only: a rank was lost; followed by the rank, its incarnation and the reason. */
    static final byte LOST = 2;
    /** Message type: the sender closed its transport. */
    static final byte GOODBYE = 3;
    /** Message type, from rank 0 only: a rank rejoined; followed by the rank, its incarnation and its address. */
    static final byte REJOINED = 4;
    /** The loss reason of a peer that said goodbye. */
    private static final int HEARTBEATS_PER_TIMEOUT = 4;
    private static final System.Logger LOG = System.getLogger(FailureDetector.class.getName());

    private final int rank;
    private final Roster roster;
    private final AtomicReferenceArray<ControlConnection> connections;
    private final ControlPlane.Listener listener;
    private final long failureMs;
    private final long heartbeatMs;
    private final Thread heartbeat;
    private volatile boolean closing;
    /** Why rank 0 declared this rank lost, as it told this rank before closing the connection; else null. */
    private volatile String selfLostReason;

    /**
     * @param rank this rank.
     * @param roster every rank's state and address, from the rendezvous; kept current here.
     * @param connections the control connections by peer rank (null where there is none: a star).
     * @param failureTimeout silence after which a peer is lost.
     * @param listener told of each loss and rejoin, once.
     */
    FailureDetector(final int rank, final Roster roster, final ControlConnection[] connections,
        final Duration failureTimeout, final ControlPlane.Listener listener)
    {
        this.rank = rank;
        this.roster = roster;
        this.connections = new AtomicReferenceArray<>(connections);
        this.listener = listener;
        this.failureMs = failureTimeout.toMillis();
        this.heartbeatMs = Math.max(1, failureMs / HEARTBEATS_PER_TIMEOUT);
        this.heartbeat = new Thread(this::beat, "spillway-rdma-heartbeat-" + rank);
        heartbeat.setDaemon(true);
    }

    /** Starts a reader per connection and the heartbeat. */
    void start()
    {
        for (int r = 0; r < connections.length(); r++)
        {
            final ControlConnection connection = connections.get(r);
            if (connection != null)
            {
                read(connection);
            }
        }
        heartbeat.start();
    }

    /** Starts the reader of {@code connection}. */
    private void read(final ControlConnection connection)
    {
        try
        {
            connection.socket.setSoTimeout((int)Math.min(Integer.MAX_VALUE, failureMs));
        }
        catch (final IOException ex)
        {
            declareLost(connection.rank, connection.incarnation, "control connection unusable: " + ex, Level.WARNING);
            return;
        }
        final Thread reader = new Thread(() -> read(connection, failureMs),
            "spillway-rdma-control-" + rank + "-" + connection.rank + "-" + connection.incarnation);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Rank 0: admits {@code incarnation} of {@code who} if that rank is lost and the incarnation is higher than the
     * lost one. Sends it the verdict and the roster, takes {@code connection} over as its control connection, tells
     * every other rank and the listener.
     *
     * @return null when admitted, else why not.
     */
    synchronized String admit(final int who, final int incarnation, final ControlConnection connection,
        final byte[] blob)
    {
        final PeerStates.State state = roster.states().get(who);
        if (closing)
        {
            return "the coordinator is closing";
        }
        if (!state.lost())
        {
            return "rank " + who + " is alive (incarnation " + state.incarnation() + "); only a lost rank may rejoin";
        }
        if (!roster.states().rejoin(who, incarnation))
        {
            return "incarnation " + incarnation + " is not higher than the lost incarnation " + state.incarnation();
        }
        roster.blob(who, blob);
        try
        {
            connection.out.writeByte(Roster.REJOIN);
            roster.write(connection.out);
            connection.out.flush();
        }
        catch (final IOException ex)
        {
            declareLost(who, incarnation, "its rejoin failed: " + ex, Level.WARNING);
            return "sending it the roster failed: " + ex;
        }
        connection.rank = who;
        connection.incarnation = incarnation;
        final ControlConnection old = connections.getAndSet(who, connection);
        if (old != null)
        {
            old.closeQuietly();
        }
        relay(who, out ->
        {
            out.writeByte(REJOINED);
            out.writeInt(who);
            out.writeInt(incarnation);
            ControlConnection.writeBlob(out, blob);
        });
        LOG.log(Level.INFO, () -> "spillway-rdma: rank 0 admitted rank " + who + " as incarnation " + incarnation +
            " (incarnation " + state.incarnation() + " was lost: " + state.lostReason() + ")");
        listener.rejoined(who, incarnation, blob);
        read(connection);
        return null;
    }

    /**
     * Declares {@code incarnation} of {@code who} lost, once, and logs it: rank 0 relays it to the others, then the
     * listener is told. Ignored for this rank, an incarnation that is not current, one lost before, and once closing.
     *
     * @param level of the log line: a goodbye, even relayed, is routine.
     */
    private synchronized void declareLost(final int who, final int incarnation, final String reason,
        final Level level)
    {
        if (closing || who == rank || !roster.states().lose(who, incarnation, reason))
        {
            return;
        }
        relay(who, out ->
        {
            out.writeByte(LOST);
            out.writeInt(who);
            out.writeInt(incarnation);
            out.writeUTF(reason);
        });
        LOG.log(level, () -> "spillway-rdma: rank " + rank + " lost rank " + who + " incarnation " + incarnation +
            ": " + reason);
        listener.lost(who, incarnation, reason);
    }

    /**
     * A rank other than 0: rank 0 reports that {@code incarnation} of {@code who} rejoined. A current incarnation
     * still alive here is lost first: a newer one exists.
     */
    private synchronized void rejoined(final int who, final int incarnation, final byte[] blob)
    {
        final PeerStates.State state = roster.states().get(who);
        if (closing || who == rank || incarnation <= state.incarnation())
        {
            return;
        }
        if (!state.lost())
        {
            declareLost(who, state.incarnation(), "replaced by incarnation " + incarnation, Level.WARNING);
        }
        roster.states().rejoin(who, incarnation);
        roster.blob(who, blob);
        LOG.log(Level.INFO, () -> "spillway-rdma: rank " + rank + " heard rank " + who + " rejoin as incarnation " +
            incarnation);
        listener.rejoined(who, incarnation, blob);
    }

    /** Rank 0: sends {@code message} to every other live rank but {@code who}. */
    private void relay(final int who, final ControlConnection.Message message)
    {
        if (rank != 0)
        {
            return;
        }
        for (int r = 0; r < connections.length(); r++)
        {
            final ControlConnection connection = connections.get(r);
            if (connection != null && r != who && !roster.states().get(r).lost())
            {
                connection.sendQuietly(message);
            }
        }
    }

    private void read(final ControlConnection connection, final long timeoutMs)
    {
        try
        {
            while (!closing)
            {
                final byte type = connection.in.readByte();
                if (type == LOST)
                {
                    final int who = connection.in.readInt();
                    final int incarnation = connection.in.readInt();
                    final String report = connection.in.readUTF();
                    if (who == rank && incarnation == roster.states().incarnation(rank))
                    {
                        selfLostReason = report;
                        LOG.log(Level.WARNING, () -> "spillway-rdma: rank 0 declared this rank's incarnation " +
                            incarnation + " lost (" + report + "): this process was paused or cut off");
                    }
                    declareLost(who, incarnation, "reported by rank 0: " + report,
                        PeerEvent.CLOSED.equals(report) ? Level.DEBUG : Level.WARNING);
                }
                else if (type == REJOINED)
                {
                    final int who = connection.in.readInt();
                    final int incarnation = connection.in.readInt();
                    rejoined(who, incarnation, ControlConnection.readBlob(connection.in));
                }
                else if (type == GOODBYE)
                {
                    declareLost(connection.rank, connection.incarnation, PeerEvent.CLOSED, Level.DEBUG);
                    return;
                }
            }
        }
        catch (final SocketTimeoutException ex)
        {
            final String reason = "no heartbeat for " + timeoutMs + " ms";
            declareLost(connection.rank, connection.incarnation, reason, Level.WARNING);
            if (rank == 0 && !closing)
            {
                // Should the silent process run on (a zombie), it reads why before the end of the stream.
                connection.sendQuietly(out ->
                {
                    out.writeByte(LOST);
                    out.writeInt(connection.rank);
                    out.writeInt(connection.incarnation);
                    out.writeUTF(reason);
                });
            }
        }
        catch (final IOException ex)
        {
            if (!closing)
            {
                declareLost(connection.rank, connection.incarnation, selfLostReason != null ?
                    "it closed the control connection of this rank's lost incarnation" : "control connection closed (" +
                    (ex instanceof EOFException ? "end of stream" : ex.getMessage()) + "): process died?",
                    Level.WARNING);
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
            for (int r = 0; r < connections.length(); r++)
            {
                final ControlConnection connection = connections.get(r);
                if (connection != null && !roster.states().get(r).lost())
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

    /** @return why rank 0 declared this rank's incarnation lost, once it said so; else null. */
    String selfLostReason()
    {
        return selfLostReason;
    }

    /** Says goodbye to every connected peer and closes the connections; idempotent. */
    @Override
    public void close()
    {
        synchronized (this)
        {
            if (closing)
            {
                return;
            }
            closing = true;
        }
        heartbeat.interrupt();
        for (int r = 0; r < connections.length(); r++)
        {
            final ControlConnection connection = connections.get(r);
            if (connection != null)
            {
                connection.sendQuietly(out -> out.writeByte(GOODBYE));
                connection.closeQuietly();
            }
        }
    }
}
