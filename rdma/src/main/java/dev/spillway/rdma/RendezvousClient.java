package dev.spillway.rdma;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.ConnectException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;

/**
 * A rank's side of the rendezvous (every rank but 0): connects to the coordinator, proves the job secret
 * ({@link Handshake}) and its incarnation, sends its address blob and reads the coordinator's verdict: joined the
 * starting job (then every rank's state and blob once all joined), rejoined the running job as a new incarnation of a
 * lost rank (then the table at once), or refused with the reason. A rank the coordinator turns away before the
 * handshake (too many connections await theirs) retries with a growing backoff until the connect timeout.
 */
final class RendezvousClient
{
    private static final System.Logger LOG = System.getLogger(RendezvousClient.class.getName());
    /** A rank turned away before the handshake (the coordinator is busy) retries after this, doubling... */
    private static final long FIRST_BACKOFF_MS = 10;
    /** ...up to this. */
    private static final long MAX_BACKOFF_MS = 500;
    /** Pause between attempts to connect while the coordinator does not listen yet. */
    private static final long CONNECT_RETRY_MS = 20;

    private final TransportConfig config;
    private final Handshake handshake;
    private final String coordinator;
    private boolean rejoined;

    RendezvousClient(final TransportConfig config)
    {
        this.config = config;
        this.handshake = new Handshake(config.secret(), config.size());
        this.coordinator = config.coordinator().toString();
    }

    /**
     * Joins the rendezvous, or the running job.
     *
     * @param blob this rank's address blob.
     * @param connections receives the connection to the coordinator at index 0, as soon as it is open (the caller
     *        closes it when this throws).
     * @param deadline {@link System#nanoTime()} by which the rendezvous must be complete.
     * @return every rank's state and address blob.
     * @throws AuthenticationException when the coordinator refuses this rank's proof or cannot prove the secret.
     * @throws TransportException naming the reason when the coordinator does not admit this rank.
     * @throws TransportTimeoutException when the coordinator cannot be reached, or turns this rank away, until the
     *         deadline.
     */
    Roster join(final byte[] blob, final ControlConnection[] connections, final long deadline) throws IOException
    {
        long backoffMs = FIRST_BACKOFF_MS;
        int turnedAway = 0;
        while (true)
        {
            final ControlConnection connection = new ControlConnection(connect(deadline));
            connections[0] = connection;
            connection.rank = 0;
            try
            {
                connection.socket.setSoTimeout(Math.max(1, Deadlines.remainingMs(deadline)));
                handshake.join(connection.in, connection.out, config.rank(), config.incarnation(), coordinator);
                return exchange(connection, blob);
            }
            catch (final Handshake.NotGreetedException ex)
            {
                connection.closeQuietly();
                turnedAway++;
                if (Deadlines.remainingMs(deadline) <= backoffMs)
                {
                    throw new TransportTimeoutException(0, "rank " + config.rank() + ": rendezvous at " +
                        coordinator + " (turned away before the handshake " + turnedAway + " times: " +
                        ex.getMessage() + "; too many connections awaiting their handshake there?)",
                        config.connectTimeout().toMillis());
                }
                final long pauseMs = backoffMs;
                LOG.log(Level.DEBUG, () -> "spillway-rdma: rank " + config.rank() + " turned away by " + coordinator +
                    " (" + ex.getMessage() + "); retrying in " + pauseMs + " ms");
                sleep(backoffMs);
                backoffMs = Math.min(MAX_BACKOFF_MS, 2 * backoffMs);
            }
            catch (final SocketTimeoutException ex)
            {
                connection.closeQuietly();
                throw new TransportTimeoutException(0, "rank " + config.rank() + ": rendezvous at " +
                    coordinator, config.connectTimeout().toMillis());
            }
            catch (final AuthenticationException ex)
            {
                LOG.log(Level.WARNING, "spillway-rdma: rank " + config.rank() + ": handshake with coordinator " +
                    connection.socket.getRemoteSocketAddress() + " failed: " + ex.getMessage());
                connection.closeQuietly();
                throw ex;
            }
        }
    }

    /** @return true when this rank rejoined a running job, false when it joined a starting one. */
    boolean rejoined()
    {
        return rejoined;
    }

    /** Sends this rank's blob, then reads the verdict and the table. */
    private Roster exchange(final ControlConnection connection, final byte[] blob) throws IOException
    {
        ControlConnection.writeBlob(connection.out, blob);
        connection.out.flush();
        final byte verdict = connection.in.readByte();
        if (verdict == Roster.REFUSED)
        {
            final String reason = connection.in.readUTF();
            LOG.log(Level.WARNING, "spillway-rdma: rank " + config.rank() + " incarnation " + config.incarnation() +
                ": coordinator " + coordinator + " refused it: " + reason);
            throw new TransportException("rank " + config.rank() + ": coordinator " + coordinator +
                " refused to admit it: " + reason);
        }
        if (verdict != Roster.JOIN && verdict != Roster.REJOIN)
        {
            throw new IOException("unknown verdict " + verdict + " from coordinator " + coordinator);
        }
        rejoined = verdict == Roster.REJOIN;
        final Roster roster = Roster.read(connection.in, config.size());
        connection.incarnation = roster.states().incarnation(0);
        return roster;
    }

    /** @return a socket connected to the coordinator, retrying while it does not listen yet. */
    private Socket connect(final long deadline) throws IOException
    {
        while (true)
        {
            final Socket socket = new Socket();
            try
            {
                socket.connect(config.coordinator(), Math.max(1, Deadlines.remainingMs(deadline)));
                socket.setTcpNoDelay(true);
                return socket;
            }
            catch (final ConnectException | SocketTimeoutException ex)
            {
                socket.close();
                if (Deadlines.remainingMs(deadline) <= 0)
                {
                    throw new TransportTimeoutException(0, "rank " + config.rank() + ": connecting to coordinator " +
                        config.coordinator() + " (" + ex.getMessage() + ")", config.connectTimeout().toMillis());
                }
                sleep(CONNECT_RETRY_MS);
            }
        }
    }

    private void sleep(final long ms)
    {
        try
        {
            TimeUnit.MILLISECONDS.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new TransportException("rank " + config.rank() + ": interrupted while connecting", ex);
        }
    }
}
