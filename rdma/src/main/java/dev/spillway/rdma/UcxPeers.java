package dev.spillway.rdma;

import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;

import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * This rank's UCX endpoint to every rank, and whether each can still be reached: a peer is unreachable while its
 * current incarnation is lost (the {@link PeerStates} shared with {@link UcxTransport#lostReason}), and every peer is
 * once this rank is closing. A rejoined peer gets a new endpoint, to its new worker. Endpoints and states are changed
 * on the agent thread only; states and the closing flag are read from any thread.
 */
final class UcxPeers
{
    private static final System.Logger LOG = System.getLogger(UcxPeers.class.getName());
    private static final String CLOSING = "this rank is closing";

    private final TransportConfig config;
    private final int rank;
    private final PeerStates states;
    private UcpEndpoint[] endpoints;
    private volatile boolean closing;

    /** @param states each rank's incarnation and loss; changed here only. */
    UcxPeers(final TransportConfig config, final PeerStates states)
    {
        this.config = config;
        this.rank = config.rank();
        this.states = states;
    }

    /**
     * Takes every rank's state from the rendezvous and creates an endpoint to every live rank.
     *
     * @param table each rank's state at the rendezvous.
     * @param addresses each rank's UCX worker address.
     * @param onError told when UCX reports a peer failed (with peer error handling on).
     */
    void connect(final UcpWorker worker, final PeerStates table, final byte[][] addresses,
        final PeerLossListener onError)
    {
        endpoints = new UcpEndpoint[config.size()];
        for (int r = 0; r < endpoints.length; r++)
        {
            states.set(r, table.get(r));
            if (!table.get(r).lost())
            {
                endpoints[r] = newEndpoint(worker, r, table.incarnation(r), addresses[r], onError);
            }
        }
    }

    /**
     * Replaces lost {@code peer} by {@code incarnation} and connects an endpoint to it. The old incarnation's
     * endpoint was force-closed at its loss, or (without peer error handling) is left to the worker's destruction.
     *
     * @return false, doing nothing, when the peer is alive or the incarnation is not higher than its current one.
     */
    boolean rejoin(final UcpWorker worker, final int peer, final int incarnation, final byte[] address,
        final PeerLossListener onError)
    {
        if (!states.rejoin(peer, incarnation))
        {
            return false;
        }
        endpoints[peer] = newEndpoint(worker, peer, incarnation, address, onError);
        return true;
    }

    private UcpEndpoint newEndpoint(final UcpWorker worker, final int peer, final int incarnation,
        final byte[] bytes, final PeerLossListener onError)
    {
        final ByteBuffer address = ByteBuffer.allocateDirect(bytes.length);
        address.put(bytes).flip();
        final UcpEndpointParams params = new UcpEndpointParams().setUcpAddress(address)
            .setName("rank-" + peer + "-incarnation-" + incarnation);
        if (config.peerErrorHandling())
        {
            params.setPeerErrorHandlingMode().setErrorHandler((ep, status, message) ->
                onError.lost(peer, incarnation, "UCX reported " + message + " (status " + status + ")"));
        }
        return worker.newEndpoint(params);
    }

    /** @return the endpoint to {@code peer}; null once closed after its loss (with peer error handling on). */
    UcpEndpoint endpoint(final int peer)
    {
        return endpoints[peer];
    }

    /** @return the current incarnation of {@code peer}. */
    int incarnation(final int peer)
    {
        return states.incarnation(peer);
    }

    /** @return the current state of {@code peer}. */
    PeerStates.State state(final int peer)
    {
        return states.get(peer);
    }

    /** @return why {@code peer} was lost, or null. */
    String lostReason(final int peer)
    {
        return states.lostReason(peer);
    }

    /**
     * Records that {@code incarnation} of {@code peer} is lost, once.
     *
     * @return true when this call lost it; false when it was lost before, or is not the current incarnation.
     */
    boolean markLost(final int peer, final int incarnation, final String reason)
    {
        return states.lose(peer, incarnation, reason);
    }

    /** @return true once this rank is closing its transport. */
    boolean closing()
    {
        return closing;
    }

    /** From now on every operation is refused. */
    void startClosing()
    {
        closing = true;
    }

    /**
     * Fails {@code future} when operations towards {@code peer} are refused: this rank is closing, or the peer is
     * lost.
     *
     * @param what the operation, for the message.
     * @return true when refused.
     */
    boolean refuse(final int peer, final String what, final CompletableFuture<?> future)
    {
        final String reason = closing ? CLOSING : states.lostReason(peer);
        if (reason != null)
        {
            future.completeExceptionally(new PeerFailedException(closing ? rank : peer, what, reason));
            return true;
        }
        return false;
    }

    /** @return whether operations towards {@code peer} are allowed: it is not lost and this rank is not closing. */
    boolean reachable(final int peer)
    {
        return !closing && states.lostReason(peer) == null;
    }

    /**
     * The refusal of a one-sided operation towards {@code owner}'s window, kept until the next flush.
     *
     * @return the error, or null when the owner is reachable.
     */
    PeerFailedException unreachable(final int owner, final String what)
    {
        final String reason = states.lostReason(owner);
        if (reason == null && !closing)
        {
            return null;
        }
        return new PeerFailedException(owner, what, closing ? CLOSING : reason);
    }

    /**
     * Takes the endpoint to a lost peer out of use.
     *
     * @return the endpoint for the caller to close, or null when there is none.
     */
    UcpEndpoint detach(final int peer)
    {
        if (endpoints == null || endpoints[peer] == null)
        {
            return null;
        }
        final UcpEndpoint endpoint = endpoints[peer];
        endpoints[peer] = null;
        return endpoint;
    }

    /**
     * Starts closing every endpoint still open: forcibly with peer error handling on, else flushing; without error
     * handling a lost peer's endpoint is left to the worker's destruction.
     *
     * @return the close requests to progress.
     */
    List<UcpRequest> closeAll()
    {
        final List<UcpRequest> closes = new ArrayList<>();
        if (endpoints == null)
        {
            return closes;
        }
        for (int r = 0; r < endpoints.length; r++)
        {
            if (endpoints[r] == null || (!config.peerErrorHandling() && states.get(r).lost()))
            {
                continue; // closed after its loss, or (without error handling) left to the worker's destruction
            }
            try
            {
                closes.add(config.peerErrorHandling() ? endpoints[r].closeNonBlockingForce() :
                    endpoints[r].closeNonBlockingFlush());
            }
            catch (final RuntimeException ex)
            {
                LOG.log(Level.WARNING, "spillway-rdma: rank " + rank + " closing endpoint to rank " + r + ": " + ex);
            }
        }
        return closes;
    }
}
