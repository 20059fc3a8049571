package dev.spillway.rdma;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The rendezvous and the liveness channel, over TCP (loopback unless configured otherwise). Rank 0 listens on the
 * coordinator address until every other rank connected; each connection runs a mutual HMAC-SHA256
 * challenge-response on the job secret, then the rank's opaque address blob (the UCX worker address) is collected
 * and the full table sent back to all. A peer that fails the handshake is logged to stderr with its address and
 * dropped; the rendezvous goes on waiting for the genuine ranks. The listener closes after the rendezvous.
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

    private static final int MAGIC = 0x53505759; // "SPWY"
    private static final int VERSION = 1;
    private static final int NONCE_BYTES = 32;
    private static final int MAX_BLOB_BYTES = 1 << 20;
    private static final long HANDSHAKE_MS = 5_000;
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
        catch (final IOException ex)
        {
            for (final Peer p : peers)
            {
                if (p != null)
                {
                    p.closeQuietly();
                }
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
        final byte[] secret = config.secret();
        final SecureRandom random = new SecureRandom();
        try (ServerSocket server = new ServerSocket())
        {
            server.bind(config.coordinator(), config.size());
            int joined = 0;
            while (joined < config.size() - 1)
            {
                final int waitMs = remainingMs(deadline);
                if (waitMs <= 0)
                {
                    throw new TransportTimeoutException(Transport.ANY_SOURCE, "rendezvous at " +
                        config.coordinator() + " (still missing ranks " + missing(peers, 1) + ")",
                        config.connectTimeout().toMillis());
                }
                server.setSoTimeout(waitMs);
                final Socket socket;
                try
                {
                    socket = server.accept();
                }
                catch (final SocketTimeoutException ex)
                {
                    continue;
                }
                final Peer peer = new Peer(socket);
                try
                {
                    socket.setSoTimeout((int)Math.min(HANDSHAKE_MS, Math.max(1, remainingMs(deadline))));
                    final int peerRank = acceptHandshake(peer, config, secret, random, peers);
                    blobs[peerRank] = readBlob(peer.in);
                    peers[peerRank] = peer;
                    peer.rank = peerRank;
                    joined++;
                }
                catch (final AuthenticationException | IOException ex)
                {
                    System.err.println("spillway-rdma: coordinator (rank 0) rejected connection from " +
                        socket.getRemoteSocketAddress() + ": " + ex.getMessage());
                    peer.closeQuietly();
                }
            }
        }
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

    private static int acceptHandshake(final Peer peer, final TransportConfig config, final byte[] secret,
        final SecureRandom random, final Peer[] peers) throws IOException
    {
        final byte[] serverNonce = new byte[NONCE_BYTES];
        random.nextBytes(serverNonce);
        peer.out.writeInt(MAGIC);
        peer.out.writeInt(VERSION);
        peer.out.write(serverNonce);
        peer.out.flush();
        final int claimed = peer.in.readInt();
        final int claimedSize = peer.in.readInt();
        final byte[] clientNonce = readExactly(peer.in, NONCE_BYTES);
        final byte[] proof = readExactly(peer.in, 32);
        final byte[] expected = mac(secret, "client", serverNonce, clientNonce, claimed, claimedSize);
        if (!MessageDigest.isEqual(expected, proof))
        {
            throw new AuthenticationException("peer claiming rank " + claimed + " did not prove the job secret");
        }
        if (claimedSize != config.size() || claimed < 1 || claimed >= config.size())
        {
            throw new AuthenticationException("peer claims rank " + claimed + " of " + claimedSize +
                ", the job has " + config.size() + " ranks");
        }
        if (peers[claimed] != null)
        {
            throw new AuthenticationException("rank " + claimed + " already joined from " +
                peers[claimed].socket.getRemoteSocketAddress());
        }
        peer.out.write(mac(secret, "server", serverNonce, clientNonce, claimed, claimedSize));
        peer.out.flush();
        return claimed;
    }

    private static void join(final TransportConfig config, final byte[][] blobs, final Peer[] peers,
        final long deadline) throws IOException
    {
        final Peer peer = new Peer(connect(config, deadline));
        peers[0] = peer;
        peer.rank = 0;
        peer.socket.setSoTimeout(Math.max(1, remainingMs(deadline)));
        try
        {
            if (peer.in.readInt() != MAGIC || peer.in.readInt() != VERSION)
            {
                throw new AuthenticationException("rank " + config.rank() + ": " + config.coordinator() +
                    " does not speak the spillway rendezvous protocol");
            }
            final byte[] secret = config.secret();
            final byte[] serverNonce = readExactly(peer.in, NONCE_BYTES);
            final byte[] clientNonce = new byte[NONCE_BYTES];
            new SecureRandom().nextBytes(clientNonce);
            peer.out.writeInt(config.rank());
            peer.out.writeInt(config.size());
            peer.out.write(clientNonce);
            peer.out.write(mac(secret, "client", serverNonce, clientNonce, config.rank(), config.size()));
            peer.out.flush();
            final byte[] proof;
            try
            {
                proof = readExactly(peer.in, 32);
            }
            catch (final EOFException ex)
            {
                throw new AuthenticationException("rank " + config.rank() + ": coordinator " +
                    config.coordinator() + " refused the handshake (wrong secret, size or a duplicate rank?)");
            }
            if (!MessageDigest.isEqual(proof,
                mac(secret, "server", serverNonce, clientNonce, config.rank(), config.size())))
            {
                System.err.println("spillway-rdma: rank " + config.rank() + " rejected coordinator " +
                    peer.socket.getRemoteSocketAddress() + ": it did not prove the job secret");
                throw new AuthenticationException("rank " + config.rank() + ": coordinator " +
                    config.coordinator() + " did not prove the job secret");
            }
            final byte[] mine = blobs[config.rank()];
            peer.out.writeInt(mine.length);
            peer.out.write(mine);
            peer.out.flush();
            for (int r = 0; r < config.size(); r++)
            {
                final byte[] b = readBlob(peer.in);
                if (r != config.rank())
                {
                    blobs[r] = b;
                }
            }
        }
        catch (final SocketTimeoutException ex)
        {
            peer.closeQuietly();
            throw new TransportTimeoutException(0, "rank " + config.rank() + ": rendezvous at " +
                config.coordinator(), config.connectTimeout().toMillis());
        }
        catch (final AuthenticationException ex)
        {
            peer.closeQuietly();
            throw ex;
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
                try
                {
                    TimeUnit.MILLISECONDS.sleep(20);
                }
                catch (final InterruptedException ie)
                {
                    Thread.currentThread().interrupt();
                    throw new TransportException("rank " + config.rank() + ": interrupted while connecting", ie);
                }
            }
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

    private static byte[] readBlob(final DataInputStream in) throws IOException
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

    private static byte[] mac(final byte[] secret, final String role, final byte[] serverNonce,
        final byte[] clientNonce, final int rank, final int size)
    {
        try
        {
            final Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update(("spillway-rdma v" + VERSION + " " + role).getBytes(StandardCharsets.US_ASCII));
            mac.update(serverNonce);
            mac.update(clientNonce);
            mac.update(new byte[] {(byte)(rank >>> 24), (byte)(rank >>> 16), (byte)(rank >>> 8), (byte)rank,
                (byte)(size >>> 24), (byte)(size >>> 16), (byte)(size >>> 8), (byte)size});
            return mac.doFinal();
        }
        catch (final GeneralSecurityException ex)
        {
            throw new IllegalStateException("HmacSHA256 unavailable", ex);
        }
    }

    private static int remainingMs(final long deadline)
    {
        return (int)Math.max(0, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }

    private static List<Integer> missing(final Peer[] peers, final int from)
    {
        final List<Integer> missing = new ArrayList<>();
        for (int r = from; r < peers.length; r++)
        {
            if (peers[r] == null)
            {
                missing.add(r);
            }
        }
        return missing;
    }

    /** One control connection; writes are serialised. */
    private static final class Peer
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
            try
            {
                socket.close();
            }
            catch (final IOException ignored)
            {
                // Closing is best effort.
            }
        }
    }
}
