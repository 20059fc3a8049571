package dev.spillway.rdma;

import java.io.EOFException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Rank 0's side of the rendezvous: listens on the coordinator address from {@link #start} until {@link #close},
 * serving the handshakes of all connections at once, so that connections that are not ranks cannot hold the genuine
 * ones up. Each connection has {@link TransportConfig#handshakeTimeout()} for its handshake and address blob; at most
 * {@link TransportConfig#maxPendingHandshakes()} are served at a time and further ones are closed at once (a rank
 * that is turned away so retries). Refusals go to a rate-limited {@link RejectionLog}.
 *
 * <p>While the job starts, each rank joins once, with the coordinator's incarnation, and is told {@link Roster#JOIN};
 * once all joined, {@link #awaitStartup} sends every rank the table. Afterwards a proven connection is a rejoin,
 * which the {@link Admission} (the failure detector) admits or refuses; a refused rank is told why.
 */
final class RendezvousServer implements AutoCloseable
{
    /** Decides on a rejoin once the job runs. */
    @FunctionalInterface
    interface Admission
    {
        /**
         * Admits {@code incarnation} of {@code rank}, connected over {@code connection} with address {@code blob}:
         * sends it the verdict and the table and takes over the connection; or refuses it.
         *
         * @return null when admitted, else why not (the caller tells the rank and closes the connection).
         */
        String rejoin(int rank, int incarnation, ControlConnection connection, byte[] blob);
    }

    private static final System.Logger LOG = System.getLogger(RendezvousServer.class.getName());
    /** Least listen backlog: connections accepted but not yet taken by the accept loop. */
    private static final int MIN_BACKLOG = 128;
    /** Pause after a failed accept (out of file descriptors?) before the next. */
    private static final long ACCEPT_RETRY_MS = 20;
    private static final String WHO = "coordinator (rank 0)";

    private final TransportConfig config;
    private final Handshake handshake;
    private final Semaphore slots;
    private final Set<Socket> pending = ConcurrentHashMap.newKeySet();
    private final RejectionLog log = RejectionLog.toLogger(WHO);
    private final ServerSocket server = new ServerSocket();
    private final ExecutorService workers;
    private final ScheduledExecutorService deadlines;
    private final Thread acceptor;
    private volatile boolean closed;
    // The start-up, guarded by this.
    private final byte[][] blobs;
    private final ControlConnection[] peers;
    private final SocketAddress[] joinedFrom;
    private int joined;
    private boolean started;
    private Admission admission;

    /** @param blob this rank's address blob. */
    RendezvousServer(final TransportConfig config, final byte[] blob) throws IOException
    {
        this.config = config;
        this.handshake = new Handshake(config.secret(), config.size());
        this.slots = new Semaphore(config.maxPendingHandshakes());
        this.blobs = new byte[config.size()][];
        this.blobs[0] = blob.clone();
        this.peers = new ControlConnection[config.size()];
        this.joinedFrom = new SocketAddress[config.size()];
        this.workers = Executors.newFixedThreadPool(config.maxPendingHandshakes(), daemons("spillway-rdma-handshake-"));
        this.deadlines = Executors.newSingleThreadScheduledExecutor(daemons("spillway-rdma-handshake-deadline-"));
        this.acceptor = daemons("spillway-rdma-rendezvous-").newThread(this::acceptAll);
    }

    /** Listens on the coordinator address and starts accepting. */
    void start() throws IOException
    {
        server.bind(config.coordinator(), Math.max(MIN_BACKLOG, config.size()));
        acceptor.start();
    }

    /**
     * Waits until every other rank has joined, then sends each the table and ends the start-up: later connections
     * are rejoins.
     *
     * @param deadline {@link System#nanoTime()} by which the rendezvous must be complete.
     * @return the table, every rank alive with this rank's incarnation.
     * @throws TransportTimeoutException naming the ranks still missing at the deadline.
     */
    synchronized Roster awaitStartup(final long deadline) throws IOException
    {
        while (joined < config.size() - 1)
        {
            final int waitMs = Deadlines.remainingMs(deadline);
            if (waitMs <= 0)
            {
                throw new TransportTimeoutException(Transport.ANY_SOURCE, "rendezvous at " + config.coordinator() +
                    " (still missing ranks " + missing() + ")", config.connectTimeout().toMillis());
            }
            try
            {
                wait(waitMs);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                throw new TransportException("rank 0: interrupted in the rendezvous", ex);
            }
        }
        started = true;
        final Roster roster = new Roster(new PeerStates(config.size(), config.incarnation()), blobs);
        for (int r = 1; r < peers.length; r++)
        {
            roster.write(peers[r].out);
            peers[r].out.flush();
        }
        return roster;
    }

    /** @return the control connection to each rank, by rank (none to this one), once the start-up is over. */
    synchronized ControlConnection[] connections()
    {
        return peers.clone();
    }

    /** From now on, rejoins go to {@code admission}; before, they are refused. */
    synchronized void admitRejoins(final Admission admission)
    {
        this.admission = admission;
    }

    private void acceptAll()
    {
        while (!closed)
        {
            try
            {
                admit(server.accept());
            }
            catch (final IOException ex)
            {
                if (closed)
                {
                    return;
                }
                LOG.log(Level.WARNING, "spillway-rdma: " + WHO + " failed to accept a connection: " + ex);
                sleep();
            }
        }
    }

    private void admit(final Socket socket)
    {
        if (!slots.tryAcquire())
        {
            ControlConnection.closeQuietly(socket);
            log.rejected(socket.getRemoteSocketAddress(), RejectionLog.Cause.OVER_CAP, config.maxPendingHandshakes() +
                " connections are already in their handshake; closed at once");
            return;
        }
        pending.add(socket);
        final AtomicBoolean settled = new AtomicBoolean(); // by the worker's outcome or by the deadline, once
        final ScheduledFuture<?> expiry = deadlines.schedule(() ->
        {
            if (settled.compareAndSet(false, true))
            {
                ControlConnection.closeQuietly(socket);
            }
        }, config.handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS);
        workers.execute(() ->
        {
            try
            {
                serve(socket, settled);
                expiry.cancel(false);
            }
            finally
            {
                slots.release();
            }
        });
    }

    /**
     * Runs one connection's handshake, reads its address and admits or refuses the rank; logs why a connection was
     * refused.
     *
     * @param settled set by whichever comes first: this outcome, or the deadline (which closes the socket).
     */
    private void serve(final Socket socket, final AtomicBoolean settled)
    {
        final SocketAddress from = socket.getRemoteSocketAddress();
        final ControlConnection peer;
        final Handshake.Claim claim;
        final byte[] blob;
        try
        {
            socket.setSoTimeout((int)Math.min(Integer.MAX_VALUE, config.handshakeTimeout().toMillis()));
            peer = new ControlConnection(socket);
            claim = handshake.accept(peer.in, peer.out);
            blob = readBlob(peer, claim);
            if (!settled.compareAndSet(false, true))
            {
                throw new SocketTimeoutException("handshake deadline passed");
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            final boolean expired = !settled.compareAndSet(false, true);
            if (pending.remove(socket)) // else the coordinator's close closed it, and counts it
            {
                ControlConnection.closeQuietly(socket);
                refused(from, ex, expired);
            }
            return;
        }
        if (!pending.remove(socket))
        {
            return; // the coordinator closed meanwhile, and closed this connection
        }
        try
        {
            final String refusal = register(claim, peer, blob, from);
            if (refusal != null)
            {
                refuse(peer, claim, refusal);
                log.rejected(from, RejectionLog.Cause.NOT_ADMITTED, "rank " + claim.rank() + " incarnation " +
                    claim.incarnation() + ": " + refusal);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            ControlConnection.closeQuietly(socket);
            refused(from, ex, false);
        }
    }

    private static byte[] readBlob(final ControlConnection peer, final Handshake.Claim claim) throws IOException
    {
        try
        {
            return ControlConnection.readBlob(peer.in);
        }
        catch (final EOFException ex)
        {
            throw new EOFException("rank " + claim.rank() + " closed the connection before sending its address");
        }
    }

    /** @return null when the rank joined or rejoined, else why it may not. */
    private String register(final Handshake.Claim claim, final ControlConnection peer, final byte[] blob,
        final SocketAddress from) throws IOException
    {
        final Admission rejoins;
        synchronized (this)
        {
            if (!started)
            {
                return join(claim, peer, blob, from);
            }
            rejoins = admission;
        }
        return rejoins == null ? "the job is still starting" :
            rejoins.rejoin(claim.rank(), claim.incarnation(), peer, blob);
    }

    /** Registers a rank of the starting job and tells it it joined; the caller holds the lock. */
    private String join(final Handshake.Claim claim, final ControlConnection peer, final byte[] blob,
        final SocketAddress from) throws IOException
    {
        final int rank = claim.rank();
        if (claim.incarnation() != config.incarnation())
        {
            return "incarnation " + claim.incarnation() + " is not the coordinator's incarnation " +
                config.incarnation() + " (a job starts with the same incarnation everywhere)";
        }
        if (peers[rank] != null)
        {
            return "rank " + rank + " already joined from " + joinedFrom[rank];
        }
        peer.out.writeByte(Roster.JOIN);
        peer.out.flush();
        peer.rank = rank;
        peer.incarnation = claim.incarnation();
        peers[rank] = peer;
        blobs[rank] = blob;
        joinedFrom[rank] = from;
        joined++;
        notifyAll();
        return null;
    }

    /** Tells a proven rank why it is not admitted, and hangs up. */
    private static void refuse(final ControlConnection peer, final Handshake.Claim claim, final String reason)
    {
        peer.sendQuietly(out ->
        {
            out.writeByte(Roster.REFUSED);
            out.writeUTF("rank " + claim.rank() + " incarnation " + claim.incarnation() + ": " + reason);
        });
        peer.closeQuietly();
    }

    private void refused(final SocketAddress from, final Exception ex, final boolean expired)
    {
        if (expired || ex instanceof SocketTimeoutException)
        {
            log.rejected(from, RejectionLog.Cause.TIMED_OUT, "no handshake and address within " +
                config.handshakeTimeout().toMillis() + " ms");
        }
        else if (ex instanceof AuthenticationException)
        {
            log.rejected(from, RejectionLog.Cause.NOT_AUTHENTICATED, ex.getMessage());
        }
        else if (ex instanceof EOFException)
        {
            log.rejected(from, RejectionLog.Cause.CLOSED, ex.getMessage());
        }
        else
        {
            log.rejected(from, RejectionLog.Cause.FAILED, ex.getMessage() == null ? ex.toString() :
                ex.getClass().getSimpleName() + ": " + ex.getMessage());
        }
    }

    private synchronized List<Integer> missing()
    {
        final List<Integer> missing = new ArrayList<>();
        for (int r = 1; r < peers.length; r++)
        {
            if (peers[r] == null)
            {
                missing.add(r);
            }
        }
        return missing;
    }

    /**
     * Stops listening, closes the connections still in their handshake, lets their workers finish, and sums up the
     * log. The connections of joined ranks are the caller's.
     */
    @Override
    public void close()
    {
        closed = true;
        ControlConnection.closeQuietly(server);
        int abandoned = 0;
        for (final Socket socket : pending)
        {
            if (pending.remove(socket))
            {
                ControlConnection.closeQuietly(socket);
                abandoned++;
            }
        }
        workers.shutdown();
        deadlines.shutdownNow();
        try
        {
            // A safety net: with their sockets closed, the workers end at once.
            workers.awaitTermination(config.handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS);
            acceptor.join(config.handshakeTimeout().toMillis());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        log.flush();
        log.abandoned(abandoned);
    }

    private static void sleep()
    {
        try
        {
            TimeUnit.MILLISECONDS.sleep(ACCEPT_RETRY_MS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private static ThreadFactory daemons(final String prefix)
    {
        final AtomicInteger next = new AtomicInteger();
        return task ->
        {
            final Thread thread = new Thread(task, prefix + next.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
