package dev.spillway.rdma;

import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
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
 * Rank 0's side of the rendezvous: listens on the coordinator address until every other rank has joined, serving
 * the handshakes of all connections at once, so that connections that are not ranks cannot hold the genuine ones
 * up. Each connection has {@link TransportConfig#handshakeTimeout()} for its handshake and address blob; at most
 * {@link TransportConfig#maxPendingHandshakes()} are served at a time and further ones are closed at once (a rank
 * that is turned away so retries). Refusals go to a rate-limited {@link RejectionLog}. Once all joined,
 * {@link #publish} sends every rank the full table of address blobs.
 */
final class RendezvousServer
{
    /** Least listen backlog: connections accepted but not yet taken by the accept loop. */
    private static final int MIN_BACKLOG = 128;
    private static final String WHO = "coordinator (rank 0)";

    private final TransportConfig config;
    private final Handshake handshake;
    private final byte[][] blobs;
    private final ControlConnection[] peers;
    private final SocketAddress[] claimedBy;
    private final Semaphore slots;
    private final Set<Socket> pending = ConcurrentHashMap.newKeySet();
    private final RejectionLog log = RejectionLog.toLogger(WHO);
    private ServerSocket server;
    private int joined;

    /**
     * @param blobs receives each rank's address blob, by rank.
     * @param peers receives each rank's control connection, by rank.
     */
    RendezvousServer(final TransportConfig config, final byte[][] blobs, final ControlConnection[] peers)
    {
        this.config = config;
        this.handshake = new Handshake(config.secret(), config.size());
        this.blobs = blobs;
        this.peers = peers;
        this.claimedBy = new SocketAddress[config.size()];
        this.slots = new Semaphore(config.maxPendingHandshakes());
    }

    /**
     * Accepts connections until every other rank has joined; then stops listening and closes the connections
     * still in their handshake.
     *
     * @param deadline {@link System#nanoTime()} by which the rendezvous must be complete.
     * @throws TransportTimeoutException naming the ranks still missing at the deadline.
     */
    void collect(final long deadline) throws IOException
    {
        final ExecutorService workers = Executors.newFixedThreadPool(config.maxPendingHandshakes(),
            daemons("spillway-rdma-handshake-"));
        final ScheduledExecutorService deadlines = Executors.newSingleThreadScheduledExecutor(
            daemons("spillway-rdma-handshake-deadline-"));
        try (ServerSocket listening = new ServerSocket())
        {
            server = listening;
            listening.bind(config.coordinator(), Math.max(MIN_BACKLOG, config.size()));
            while (!complete())
            {
                final int waitMs = Deadlines.remainingMs(deadline);
                if (waitMs <= 0)
                {
                    throw new TransportTimeoutException(Transport.ANY_SOURCE, "rendezvous at " +
                        config.coordinator() + " (still missing ranks " + missing() + ")",
                        config.connectTimeout().toMillis());
                }
                listening.setSoTimeout(waitMs);
                final Socket socket;
                try
                {
                    socket = listening.accept();
                }
                catch (final SocketTimeoutException ex)
                {
                    continue;
                }
                catch (final SocketException ex)
                {
                    if (complete())
                    {
                        break; // the last rank's worker closed the listener
                    }
                    throw ex;
                }
                admit(socket, workers, deadlines);
            }
        }
        finally
        {
            closePending(workers, deadlines);
        }
    }

    /** Sends every other rank the full table of address blobs, once {@link #collect} returned. */
    void publish() throws IOException
    {
        for (int r = 1; r < peers.length; r++)
        {
            final DataOutputStream out = peers[r].out;
            for (final byte[] b : blobs)
            {
                ControlConnection.writeBlob(out, b);
            }
            out.flush();
        }
    }

    private void admit(final Socket socket, final ExecutorService workers, final ScheduledExecutorService deadlines)
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
     * Runs one connection's handshake; registers the rank or logs why it was refused.
     *
     * @param settled set by whichever comes first: this outcome, or the deadline (which closes the socket).
     */
    private void serve(final Socket socket, final AtomicBoolean settled)
    {
        final SocketAddress from = socket.getRemoteSocketAddress();
        final int[] claimed = {-1};
        try
        {
            socket.setSoTimeout((int)Math.min(Integer.MAX_VALUE, config.handshakeTimeout().toMillis()));
            final ControlConnection peer = new ControlConnection(socket);
            final int rank = handshake.accept(peer.in, peer.out, r ->
            {
                claim(r, from);
                claimed[0] = r;
            });
            final byte[] blob;
            try
            {
                blob = ControlConnection.readBlob(peer.in);
            }
            catch (final EOFException ex)
            {
                throw new EOFException("rank " + rank + " closed the connection before sending its address");
            }
            if (!settled.compareAndSet(false, true))
            {
                throw new SocketTimeoutException("handshake deadline passed");
            }
            if (pending.remove(socket))
            {
                register(rank, peer, blob);
            }
            else
            {
                release(rank); // the rendezvous ended meanwhile and closed this connection
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            if (claimed[0] >= 0)
            {
                release(claimed[0]);
            }
            final boolean expired = !settled.compareAndSet(false, true);
            if (pending.remove(socket)) // else the end of the rendezvous closed it, and counts it
            {
                ControlConnection.closeQuietly(socket);
                refused(from, ex, expired);
            }
        }
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

    private synchronized void claim(final int rank, final SocketAddress from)
    {
        if (claimedBy[rank] != null)
        {
            throw new AuthenticationException("rank " + rank + " already joined from " + claimedBy[rank]);
        }
        claimedBy[rank] = from;
    }

    private synchronized void release(final int rank)
    {
        claimedBy[rank] = null;
    }

    private synchronized void register(final int rank, final ControlConnection peer, final byte[] blob)
    {
        blobs[rank] = blob;
        peer.rank = rank;
        peers[rank] = peer;
        if (++joined == config.size() - 1)
        {
            ControlConnection.closeQuietly(server); // wakes the accept loop
        }
    }

    private synchronized boolean complete()
    {
        return joined == config.size() - 1;
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

    /** Closes the connections still in their handshake, lets their workers finish, and sums up the log. */
    private void closePending(final ExecutorService workers, final ScheduledExecutorService deadlines)
    {
        int closed = 0;
        for (final Socket socket : pending)
        {
            if (pending.remove(socket))
            {
                ControlConnection.closeQuietly(socket);
                closed++;
            }
        }
        workers.shutdown();
        deadlines.shutdownNow();
        try
        {
            // A safety net: with their sockets closed, the workers end at once.
            workers.awaitTermination(config.handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        log.flush();
        log.abandoned(closed);
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
