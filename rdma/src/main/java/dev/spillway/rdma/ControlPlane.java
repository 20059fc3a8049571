package dev.spillway.rdma;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The rendezvous and the liveness channel, over TCP (loopback unless configured otherwise). Rank 0 listens on the
 * coordinator address until every other rank connected ({@link RendezvousServer}); each connection runs a mutual
 * HMAC-SHA256 challenge-response on the job secret ({@link Handshake}), then the rank's opaque address blob (the UCX
 * worker address) is collected and the full table sent back to all. Handshakes are served concurrently, each within
 * its deadline; a peer that fails is logged to stderr (rate-limited) with its address and the cause, and dropped;
 * the rendezvous goes on waiting for the genuine ranks. A rank turned away before the handshake (the coordinator
 * has too many pending) retries. The listener closes after the rendezvous.
 *
 * <p>The connections stay open as a star around rank 0 and carry heartbeats: a closed connection (process death)
 * loses that peer at once, silence for the failure timeout loses it later; rank 0 relays every loss to the others.
 * Losing rank 0 loses the star.
 */
final class ControlPlane implements AutoCloseable
{
    /** Told once per lost peer, from a control thread. */
    interface LossListener
    {
        void lost(int rank, String reason);
    }

    private static final int MAX_BLOB_BYTES = 1 << 20;
    /** A rank turned away before the handshake (the coordinator is busy) retries after this, doubling... */
    private static final long FIRST_BACKOFF_MS = 10;
    /** ...up to this. */
    private static final long MAX_BACKOFF_MS = 500;
    private static final byte HEARTBEAT = 1;
    private static final byte LOST = 2;
    private static final byte GOODBYE = 3;

    private final int rank;
    private final int size;
    private final byte[][] blobs;
    private final Peer[] peers;
    private final AtomicReferenceArray<String> lost;
    private final LossListener listener;
    private final long heartbeatMs;
    private final Thread heartbeat;
    private volatile boolean closing;

    private ControlPlane(final TransportConfig config, final byte[][] blobs, final Peer[] peers,
        final LossListener listener)
    {
        this.rank = config.rank();
        this.size = config.size();
        this.blobs = blobs;
        this.peers = peers;
        this.lost = new AtomicReferenceArray<>(size);
        this.listener = listener;
        this.heartbeatMs = Math.max(1, config.failureTimeout().toMillis() / 4);
        this.heartbeat = new Thread(this::beat, "spillway-rdma-heartbeat-" + rank);
        heartbeat.setDaemon(true);
    }

    /**
     * Runs the rendezvous for this rank and starts liveness.
     *
     * @param config rank, size, coordinator, secret, timeouts.
     * @param blob this rank's address blob.
     * @param listener told of lost peers.
     * @return the control plane holding every rank's blob.
     * @throws AuthenticationException when the coordinator or this rank fails the handshake.
     * @throws TransportTimeoutException when the rendezvous does not complete within the connect timeout.
     */
    static ControlPlane open(final TransportConfig config, final byte[] blob, final LossListener listener)
    {
        final long deadline = System.nanoTime() + config.connectTimeout().toNanos();
        final byte[][] blobs = new byte[config.size()][];
        blobs[config.rank()] = blob.clone();
        final Peer[] peers = new Peer[config.size()];
        try
        {
            if (config.rank() == 0)
            {
                coordinate(config, blobs, peers, deadline);
            }
            else
            {
                join(config, blobs, peers, deadline);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            for (final Peer p : peers)
            {
                if (p != null)
                {
                    p.closeQuietly();
                }
            }
            if (ex instanceof RuntimeException)
            {
                throw (RuntimeException)ex;
            }
            throw new TransportException("rank " + config.rank() + ": rendezvous with coordinator " +
                config.coordinator() + " failed: " + ex, ex);
        }
        final ControlPlane plane = new ControlPlane(config, blobs, peers, listener);
        plane.start(config.failureTimeout().toMillis());
        return plane;
    }

    /** @return rank {@code r}'s address blob. */
    byte[] blob(final int r)
    {
        return blobs[r];
    }

    private static void coordinate(final TransportConfig config, final byte[][] blobs, final Peer[] peers,
        final long deadline) throws IOException
    {
        new RendezvousServer(config, blobs, peers).collect(deadline);
        for (int r = 1; r < config.size(); r++)
        {
            final DataOutputStream out = peers[r].out;
            for (final byte[] b : blobs)
            {
                out.writeInt(b.length);
                out.write(b);
            }
            out.flush();
        }
    }

    private static void join(final TransportConfig config, final byte[][] blobs, final Peer[] peers,
        final long deadline) throws IOException
    {
        final Handshake handshake = new Handshake(config.secret(), config.size());
        final String coordinator = config.coordinator().toString();
        long backoffMs = FIRST_BACKOFF_MS;
        int turnedAway = 0;
        while (true)
        {
            final Peer peer = new Peer(connect(config, deadline));
            peers[0] = peer;
            peer.rank = 0;
            try
            {
                peer.socket.setSoTimeout(Math.max(1, remainingMs(deadline)));
                handshake.join(peer.in, peer.out, config.rank(), coordinator);
                exchangeBlobs(peer, config.rank(), blobs);
                return;
            }
            catch (final Handshake.NotGreetedException ex)
            {
                peer.closeQuietly();
                turnedAway++;
                if (remainingMs(deadline) <= backoffMs)
                {
                    throw new TransportTimeoutException(0, "rank " + config.rank() + ": rendezvous at " +
                        coordinator + " (turned away before the handshake " + turnedAway + " times: " +
                        ex.getMessage() + "; too many connections awaiting their handshake there?)",
                        config.connectTimeout().toMillis());
                }
                sleep(config, backoffMs);
                backoffMs = Math.min(MAX_BACKOFF_MS, 2 * backoffMs);
            }
            catch (final SocketTimeoutException ex)
            {
                peer.closeQuietly();
                throw new TransportTimeoutException(0, "rank " + config.rank() + ": rendezvous at " +
                    coordinator, config.connectTimeout().toMillis());
            }
            catch (final AuthenticationException ex)
            {
                System.err.println("spillway-rdma: rank " + config.rank() + ": handshake with coordinator " +
                    peer.socket.getRemoteSocketAddress() + " failed: " + ex.getMessage());
                peer.closeQuietly();
                throw ex;
            }
        }
    }

    private static void exchangeBlobs(final Peer peer, final int rank, final byte[][] blobs) throws IOException
    {
        final byte[] mine = blobs[rank];
        peer.out.writeInt(mine.length);
        peer.out.write(mine);
        peer.out.flush();
        for (int r = 0; r < blobs.length; r++)
        {
            final byte[] b = readBlob(peer.in);
            if (r != rank)
            {
                blobs[r] = b;
            }
        }
    }

    private static Socket connect(final TransportConfig config, final long deadline) throws IOException
    {
        while (true)
        {
            final Socket socket = new Socket();
            try
            {
                socket.connect(config.coordinator(), Math.max(1, remainingMs(deadline)));
                socket.setTcpNoDelay(true);
                return socket;
            }
            catch (final ConnectException | SocketTimeoutException ex)
            {
                socket.close();
                if (remainingMs(deadline) <= 0)
                {
                    throw new TransportTimeoutException(0, "rank " + config.rank() + ": connecting to coordinator " +
                        config.coordinator() + " (" + ex.getMessage() + ")", config.connectTimeout().toMillis());
                }
                sleep(config, 20);
            }
        }
    }

    private static void sleep(final TransportConfig config, final long ms)
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

    private void start(final long failureMs)
    {
        for (final Peer peer : peers)
        {
            if (peer == null)
            {
                continue;
            }
            try
            {
                peer.socket.setSoTimeout((int)Math.min(Integer.MAX_VALUE, failureMs));
            }
            catch (final IOException ex)
            {
                declareLost(peer.rank, "control connection unusable: " + ex);
                continue;
            }
            final Thread reader = new Thread(() -> read(peer), "spillway-rdma-control-" + rank + "-" + peer.rank);
            reader.setDaemon(true);
            reader.start();
        }
        heartbeat.start();
    }

    private void read(final Peer peer)
    {
        final long failureMs;
        try
        {
            failureMs = peer.socket.getSoTimeout();
        }
        catch (final IOException ex)
        {
            declareLost(peer.rank, "control connection unusable: " + ex);
            return;
        }
        try
        {
            while (!closing)
            {
                final byte type = peer.in.readByte();
                if (type == LOST)
                {
                    final int who = peer.in.readInt();
                    declareLost(who, "reported by rank 0: " + peer.in.readUTF());
                }
                else if (type == GOODBYE)
                {
                    declareLost(peer.rank, "it closed its transport");
                    return;
                }
            }
        }
        catch (final SocketTimeoutException ex)
        {
            declareLost(peer.rank, "no heartbeat for " + failureMs + " ms");
        }
        catch (final IOException ex)
        {
            if (!closing)
            {
                declareLost(peer.rank, "control connection closed (" +
                    (ex instanceof EOFException ? "end of stream" : ex.getMessage()) + "): process died?");
            }
        }
        finally
        {
            peer.closeQuietly();
        }
    }

    private void declareLost(final int who, final String reason)
    {
        if (closing || who == rank || who < 0 || who >= size || !lost.compareAndSet(who, null, reason))
        {
            return;
        }
        if (rank == 0)
        {
            for (final Peer peer : peers)
            {
                if (peer != null && peer.rank != who)
                {
                    peer.send(LOST, who, reason);
                }
            }
        }
        listener.lost(who, reason);
    }

    private void beat()
    {
        while (!closing)
        {
            for (final Peer peer : peers)
            {
                if (peer != null && lost.get(peer.rank) == null)
                {
                    peer.send(HEARTBEAT, 0, null);
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

    /** Says goodbye to every connected peer and closes the connections. */
    @Override
    public void close()
    {
        if (closing)
        {
            return;
        }
        closing = true;
        heartbeat.interrupt();
        for (final Peer peer : peers)
        {
            if (peer != null)
            {
                peer.send(GOODBYE, 0, null);
                peer.closeQuietly();
            }
        }
    }

    static byte[] readBlob(final DataInputStream in) throws IOException
    {
        final int length = in.readInt();
        if (length < 0 || length > MAX_BLOB_BYTES)
        {
            throw new IOException("address blob length " + length + " outside 0.." + MAX_BLOB_BYTES);
        }
        return readExactly(in, length);
    }

    private static byte[] readExactly(final DataInputStream in, final int length) throws IOException
    {
        final byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }

    /** Closes a socket or listener, ignoring failures: closing is best effort. */
    static void closeQuietly(final Closeable closeable)
    {
        try
        {
            closeable.close();
        }
        catch (final IOException ignored)
        {
            // Best effort.
        }
    }

    static int remainingMs(final long deadline)
    {
        return (int)Math.max(0, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }

    /** One control connection; writes are serialised. */
    static final class Peer
    {
        final Socket socket;
        final DataInputStream in;
        final DataOutputStream out;
        int rank = -1;

        Peer(final Socket socket) throws IOException
        {
            this.socket = socket;
            socket.setTcpNoDelay(true);
            in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
        }

        synchronized void send(final byte type, final int who, final String reason)
        {
            try
            {
                out.writeByte(type);
                if (type == LOST)
                {
                    out.writeInt(who);
                    out.writeUTF(reason);
                }
                out.flush();
            }
            catch (final IOException ignored)
            {
                // The reader sees the broken connection and declares the loss.
            }
        }

        void closeQuietly()
        {
            ControlPlane.closeQuietly(socket);
        }
    }
}
