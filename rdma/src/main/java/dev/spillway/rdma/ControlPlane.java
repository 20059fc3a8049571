package dev.spillway.rdma;

import java.io.IOException;

/**
 * The rendezvous and the liveness channel, over TCP (loopback unless configured otherwise), wired together. Rank 0
 * listens on the coordinator address until every other rank connected ({@link RendezvousServer}); the other ranks
 * join ({@link RendezvousClient}). Each connection runs a mutual HMAC-SHA256 challenge-response on the job secret
 * ({@link Handshake}), then the rank's opaque address blob (the UCX worker address) is collected and the full table
 * sent back to all. The listener closes after the rendezvous.
 *
 * <p>The connections stay open as a star around rank 0 and carry the {@link FailureDetector}'s heartbeats.
 */
final class ControlPlane implements AutoCloseable
{
    private final byte[][] blobs;
    private final FailureDetector failureDetector;

    private ControlPlane(final byte[][] blobs, final FailureDetector failureDetector)
    {
        this.blobs = blobs;
        this.failureDetector = failureDetector;
    }

    /**
     * Runs the rendezvous for this rank and starts liveness.
     *
     * @param config rank, size, coordinator, secret, timeouts.
     * @param blob this rank's address blob.
     * @param listener told of lost peers, once each, from a control thread.
     * @return the control plane holding every rank's blob.
     * @throws AuthenticationException when the coordinator or this rank fails the handshake.
     * @throws TransportTimeoutException when the rendezvous does not complete within the connect timeout.
     */
    static ControlPlane open(final TransportConfig config, final byte[] blob, final PeerLossListener listener)
    {
        final long deadline = System.nanoTime() + config.connectTimeout().toNanos();
        final byte[][] blobs = new byte[config.size()][];
        blobs[config.rank()] = blob.clone();
        final ControlConnection[] connections = new ControlConnection[config.size()];
        try
        {
            if (config.rank() == 0)
            {
                final RendezvousServer server = new RendezvousServer(config, blobs, connections);
                server.collect(deadline);
                server.publish();
            }
            else
            {
                new RendezvousClient(config).join(blobs, connections, deadline);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            for (final ControlConnection c : connections)
            {
                if (c != null)
                {
                    c.closeQuietly();
                }
            }
            if (ex instanceof RuntimeException)
            {
                throw (RuntimeException)ex;
            }
            throw new TransportException("rank " + config.rank() + ": rendezvous with coordinator " +
                config.coordinator() + " failed: " + ex, ex);
        }
        final FailureDetector failureDetector = new FailureDetector(config.rank(), connections,
            config.failureTimeout(), listener);
        failureDetector.start();
        return new ControlPlane(blobs, failureDetector);
    }

    /** @return rank {@code r}'s address blob. */
    byte[] blob(final int r)
    {
        return blobs[r];
    }

    /** @return the failure detector running over the control connections. */
    FailureDetector failureDetector()
    {
        return failureDetector;
    }

    /** Says goodbye to every connected peer and closes the connections. */
    @Override
    public void close()
    {
        failureDetector.close();
    }
}
