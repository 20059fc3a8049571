package dev.spillway.rdma;

import java.io.IOException;

/**
 * The rendezvous and the liveness channel, over TCP (loopback unless configured otherwise), wired together. Rank 0
 * listens on the coordinator address ({@link RendezvousServer}); the other ranks join ({@link RendezvousClient}).
 * Each connection runs a mutual HMAC-SHA256 challenge-response on the job secret ({@link Handshake}), then the rank's
 * opaque address blob (the UCX worker address) is collected and the {@link Roster} (every rank's incarnation, loss
 * and blob) sent back to all.
 *
 * <p>The connections stay open as a star around rank 0 and carry the {@link FailureDetector}'s heartbeats. Rank 0
 * keeps listening until it closes: a relaunched rank with a higher incarnation than its lost one rejoins the running
 * job through it, and every other rank is told its new address. A rank knows that it rejoined rather than joined
 * from the coordinator's verdict ({@link #rejoined()}); at the start of a job, every rank must have rank 0's
 * incarnation.
 */
final class ControlPlane implements AutoCloseable
{
    /** Told of lost and rejoined peers, once each, from a control thread. */
    interface Listener extends PeerLossListener
    {
        /**
         * @param rank the peer that rejoined.
         * @param incarnation its new incarnation.
         * @param blob its address blob.
         */
        void rejoined(int rank, int incarnation, byte[] blob);
    }

    private final Roster roster;
    private final boolean rejoined;
    private final RendezvousServer server;
    private final FailureDetector failureDetector;

    private ControlPlane(final TransportConfig config, final Roster roster, final boolean rejoined,
        final ControlConnection[] connections, final RendezvousServer server, final Listener listener)
    {
        this.roster = roster;
        this.rejoined = rejoined;
        this.server = server;
        this.failureDetector = new FailureDetector(config.rank(), roster, connections, config.failureTimeout(),
            listener);
    }

    /**
     * Runs the rendezvous for this rank; {@link #start} then starts liveness.
     *
     * @param config rank, size, incarnation, coordinator, secret, timeouts.
     * @param blob this rank's address blob.
     * @param listener told of lost and rejoined peers, once each, from a control thread, once started.
     * @return the control plane holding every rank's state and blob.
     * @throws AuthenticationException when the coordinator or this rank fails the handshake.
     * @throws TransportException naming the reason when the coordinator does not admit this rank.
     * @throws TransportTimeoutException when the rendezvous does not complete within the connect timeout.
     */
    static ControlPlane open(final TransportConfig config, final byte[] blob, final Listener listener)
    {
        final long deadline = System.nanoTime() + config.connectTimeout().toNanos();
        ControlConnection[] connections = new ControlConnection[config.size()];
        RendezvousServer server = null;
        try
        {
            if (config.rank() == 0)
            {
                server = new RendezvousServer(config, blob);
                server.start();
                final Roster roster = server.awaitStartup(deadline);
                return new ControlPlane(config, roster, false, server.connections(), server, listener);
            }
            final RendezvousClient client = new RendezvousClient(config);
            final Roster roster = client.join(blob, connections, deadline);
            return new ControlPlane(config, roster, client.rejoined(), connections, null, listener);
        }
        catch (final IOException | RuntimeException ex)
        {
            if (server != null)
            {
                server.close();
                connections = server.connections();
            }
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
    }

    /** Starts liveness and, on rank 0, admits rejoins from now on. */
    void start()
    {
        if (server != null)
        {
            server.admitRejoins(failureDetector::admit);
        }
        failureDetector.start();
    }

    /** @return every rank's incarnation, loss and blob as the rendezvous reported them. */
    Roster roster()
    {
        return roster;
    }

    /** @return true when this rank rejoined a running job, false when it joined a starting one. */
    boolean rejoined()
    {
        return rejoined;
    }

    /** @return why rank 0 declared this rank's incarnation lost, once it said so; else null. */
    String selfLostReason()
    {
        return failureDetector.selfLostReason();
    }

    /** Stops listening (rank 0), says goodbye to every connected peer and closes the connections. */
    @Override
    public void close()
    {
        if (server != null)
        {
            server.close();
        }
        failureDetector.close();
    }
}
