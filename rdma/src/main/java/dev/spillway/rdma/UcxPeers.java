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
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * This rank's UCX endpoint to every rank, and whether each can still be reached: a peer is unreachable once lost
 * (with the reason, shared with {@link UcxTransport#lostReason}), and every peer is once this rank is closing.
 * Endpoints are touched on the agent thread only; the closing flag is read from any thread.
 */
final class UcxPeers
{
    private static final System.Logger LOG = System.getLogger(UcxPeers.class.getName());
    private static final String CLOSING = "this rank is closing";

    private final TransportConfig config;
    private final int rank;
    private final AtomicReferenceArray<String> lost;
    private UcpEndpoint[] endpoints;
    private volatile boolean closing;

    /** @param lost each peer's loss reason, null while it is alive; written here only. */
    UcxPeers(final TransportConfig config, final AtomicReferenceArray<String> lost)
    {
        this.config = config;
        this.rank = config.rank();
        this.lost = lost;
    }

    /**
     * Creates an endpoint to every rank.
     *
     * @param addresses each rank's UCX worker address.
     * @param onError told when UCX reports a peer failed (with peer error handling on).
     */
    void connect(final UcpWorker worker, final byte[][] addresses, final PeerLossListener onError)
    {
        endpoints = new UcpEndpoint[config.size()];
        for (int r = 0; r < endpoints.length; r++)
        {
            final ByteBuffer address = ByteBuffer.allocateDirect(addresses[r].length);
            address.put(addresses[r]).flip();
            final UcpEndpointParams params = new UcpEndpointParams().setUcpAddress(address).setName("rank-" + r);
            if (config.peerErrorHandling())
            {
                final int peer = r;
                params.setPeerErrorHandlingMode().setErrorHandler((ep, status, message) ->
                    onError.lost(peer, "UCX reported " + message + " (status " + status + ")"));
            }
            endpoints[r] = worker.newEndpoint(params);
        }
    }

    /** @return the endpoint to {@code peer}; null once closed after its loss (with peer error handling on). */
    UcpEndpoint endpoint(final int peer)
    {
        return endpoints[peer];
    }

    /** @return why {@code peer} was lost, or null. */
    String lostReason(final int peer)
    {
        return lost.get(peer);
    }

    /**
     * Records that {@code peer} is lost, once.
     *
     * @return true when this call lost it, false when it was lost before.
     */
    boolean markLost(final int peer, final String reason)
    {
        return lost.compareAndSet(peer, null, reason);
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
        final String reason = closing ? CLOSING : lost.get(peer);
        if (reason != null)
        {
            future.completeExceptionally(new PeerFailedException(closing ? rank : peer, what, reason));
            return true;
        }
        return false;
    }

    /**
     * The refusal of a one-sided operation towards {@code owner}'s window, kept until the next flush.
     *
     * @return the error, or null when the owner is reachable.
     */
    PeerFailedException unreachable(final int owner, final String what)
    {
        final String reason = lost.get(owner);
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
            if (endpoints[r] == null || (!config.peerErrorHandling() && lost.get(r) != null))
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
