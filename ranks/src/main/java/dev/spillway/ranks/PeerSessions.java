package dev.spillway.ranks;

import dev.spillway.rdma.PeerEvent;
import dev.spillway.rdma.PeerFailedException;
import dev.spillway.rdma.PeerListener;
import dev.spillway.rdma.Transport;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * With a message-logging protocol, whether each peer can take this rank's transfers now: a lost peer that this rank
 * survives is not, until its next incarnation rejoined and the two exchanged hellos (replays posted). Waits on a lost
 * peer end when it rejoins; none fails for its loss.
 */
final class PeerSessions implements PeerListener
{
    private final Transport transport;
    private final CompletableFuture<Void>[] ready;
    private final CompletableFuture<Void>[] rejoin;
    private final Object[] posting;
    private CompletableFuture<Void> held = CompletableFuture.completedFuture(null);
    private String heldFor = "";

    @SuppressWarnings({"unchecked", "rawtypes"})
    PeerSessions(final Transport transport)
    {
        this.transport = transport;
        this.ready = new CompletableFuture[transport.size()];
        this.rejoin = new CompletableFuture[transport.size()];
        this.posting = new Object[transport.size()];
        for (int r = 0; r < ready.length; r++)
        {
            ready[r] = CompletableFuture.completedFuture(null);
            rejoin[r] = new CompletableFuture<>();
            posting[r] = new Object();
        }
    }

    /**
     * @return held while posting transfers to {@code peer}: a send checks that the peer is ready and posts under it,
     *         and the replays to a peer that greeted this rank are posted under it, so no send overtakes them.
     */
    Object posting(final int peer)
    {
        return posting[peer];
    }

    /**
     * @return completes once {@code peer} may take transfers: at once while it is up and greeted, and no recovery
     *         session holds every send.
     */
    synchronized CompletableFuture<Void> ready(final int peer)
    {
        return held.isDone() ? ready[peer] : held.thenCompose(open -> ready(peer));
    }

    /** @return what a send to {@code peer} that is not {@link #ready} waits for. */
    synchronized String waitReason(final int peer)
    {
        return !held.isDone() ? heldFor : "rank " + peer + " to rejoin and greet this rank (it was lost or this rank " +
            "restarted)";
    }

    /** Holds every send until {@link #release}: a recovery session needs this rank's sends to stand still. */
    synchronized void hold(final String why)
    {
        if (held.isDone())
        {
            held = new CompletableFuture<>();
        }
        heldFor = why;
    }

    /** @return completes once no recovery session holds this rank's sends. */
    synchronized CompletableFuture<Void> released()
    {
        return held;
    }

    /** Sends go on (to peers that are ready). */
    void release()
    {
        final CompletableFuture<Void> h;
        synchronized (this)
        {
            h = held;
        }
        h.complete(null);
    }

    /** {@code peer} must greet this rank before it takes transfers: it was lost, or this rank restarted. */
    synchronized void unready(final int peer)
    {
        if (ready[peer].isDone())
        {
            ready[peer] = new CompletableFuture<>();
        }
    }

    /** The hellos with {@code peer} were exchanged and its replays posted. */
    void markReady(final int peer)
    {
        final CompletableFuture<Void> f;
        synchronized (this)
        {
            f = ready[peer];
        }
        f.complete(null);
    }

    /**
     * @param incarnation the incarnation of {@code peer} an operation that failed with its loss was posted to.
     * @return completes once a later incarnation of {@code peer} is up (at once if one is).
     */
    synchronized CompletableFuture<Void> after(final int peer, final int incarnation)
    {
        return transport.incarnation(peer) > incarnation && transport.lostReason(peer) == null ?
            CompletableFuture.completedFuture(null) : rejoin[peer];
    }

    @Override
    public void onPeerEvent(final PeerEvent event)
    {
        if (event.kind() == PeerEvent.Kind.LOST)
        {
            unready(event.rank());
            return;
        }
        final CompletableFuture<Void> back;
        synchronized (this)
        {
            back = rejoin[event.rank()];
            rejoin[event.rank()] = new CompletableFuture<>();
        }
        back.complete(null);
    }

    /** @return whether {@code failure} (or a cause) is the loss of {@code peer} (not of this rank). */
    static boolean peerLost(final Throwable failure, final int peer)
    {
        for (Throwable t = failure; t != null; t = t.getCause())
        {
            if (t instanceof PeerFailedException p)
            {
                return p.rank() == peer;
            }
            if (!(t instanceof CompletionException) && t.getCause() == t)
            {
                return false;
            }
        }
        return false;
    }
}
