package dev.spillway.ranks;

import dev.spillway.Spillway;
import dev.spillway.rdma.PeerEvent;
import dev.spillway.rdma.PeerFailedException;
import dev.spillway.rdma.PeerListener;
import dev.spillway.rdma.Transport;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * What a lost rank does to this one. Without checkpoints, {@link #future()} fails, and with it every transfer still
 * waiting: the peer it waits for may wait on the lost one. With checkpoints the job must restart from its newest
 * global checkpoint: this rank takes no further cut, cancels what has not started, and its waits end with a
 * {@link RestartNeededException}. With a message-logging protocol, only rank 0's loss does that: any other loss is
 * left to rank 0's recovery line ({@link RecoverySessions}), and this rank's transfers with the lost one wait.
 *
 * <p>Once the job is lost this way, the rank closes its transport: a transfer posted on an object's buffer ends only
 * with its operation (the transport may read or write the buffer until then), and the close ends those operations.
 * Over UCX with peer error handling (TCP) the close fails them and at once force-closes the endpoints, with no
 * progress between, so no data leaves a buffer the engine then reuses; without it (shared memory), a peer may still
 * read such a buffer while the endpoints flush, for up to 2 s.
 */
final class JobLoss
{
    private static final long POLL_NANOS = 100_000;

    private final Transport transport;
    private final Spillway local;
    private final GlobalCheckpoints checkpoints;
    private final SubmissionCuts cuts;
    private final CompletableFuture<Void> lost = new CompletableFuture<>();
    /** Transfers handing an operation on an object's buffer to the transport now ({@link #postBegins}). */
    private final AtomicInteger posting = new AtomicInteger();
    private final PeerListener listener = this::onPeerEvent;
    private volatile RestartNeededException restart;
    private final RankProtocol protocol;
    /** Per peer: the incarnation whose loss this rank survived and said so, or -1. */
    private final int[] survived;

    /** @param protocol when active, this rank survives every loss but rank 0's, pending rank 0's recovery line. */
    JobLoss(final Transport transport, final Spillway local, final GlobalCheckpoints checkpoints,
        final SubmissionCuts cuts, final RankProtocol protocol)
    {
        this.protocol = protocol;
        this.survived = new int[transport.size()];
        Arrays.fill(survived, -1);
        this.transport = transport;
        this.local = local;
        this.checkpoints = checkpoints;
        this.cuts = cuts;
        transport.addPeerListener(listener);
        checkLost(true);
    }

    /** @return fails once any rank is lost, or the job must restart. */
    CompletableFuture<Void> future()
    {
        return lost;
    }

    /** @return why this rank stopped for a restart, or null. */
    RestartNeededException restart()
    {
        return restart;
    }

    void close()
    {
        transport.removePeerListener(listener);
    }

    /** On the transport's event thread: a lost peer ends the job's waits, or calls for a restart. */
    private void onPeerEvent(final PeerEvent event)
    {
        if (event.kind() == PeerEvent.Kind.LOST)
        {
            lost(event.rank(), event.reason(), false);
        }
    }

    /**
     * Acts on every peer already lost (lost before the listener was added, or seen by a failed wait).
     *
     * @param atStart whether this rank is only starting: a rank that resumed from the protocol's state is at the
     *                point a lost peer rolls back to, so it waits for the peer instead of rolling back again.
     */
    private void checkLost(final boolean atStart)
    {
        for (int r = 0; r < transport.size(); r++)
        {
            final String reason = r == transport.rank() ? null : transport.lostReason(r);
            if (reason != null)
            {
                lost(r, reason, atStart);
            }
        }
    }

    private void lost(final int peer, final String reason, final boolean atStart)
    {
        if (lost.isDone())
        {
            return;
        }
        final String selfLost = transport.selfLostReason();
        if (selfLost != null)
        {
            final String why = "the job declared this process (rank " + transport.rank() + ", incarnation " +
                transport.incarnation() + ") lost (" + selfLost + "): it was paused or cut off, and must make way " +
                "for a new incarnation";
            if (checkpoints == null)
            {
                fail(new PeerFailedException(transport.rank(), "the job", selfLost +
                    "; this process was paused or cut off"));
            }
            else
            {
                restartNeeded(why, -1);
            }
            return;
        }
        if (protocol.active() && (peer != DistributedSpillway.ROOT || atStart && protocol.resumed()))
        {
            synchronized (survived)
            {
                if (survived[peer] == transport.incarnation(peer))
                {
                    return;
                }
                survived[peer] = transport.incarnation(peer);
            }
            System.err.println("spillway: rank " + transport.rank() + ": rank " + peer + " is lost (" + reason + "); " +
                "this rank runs on unless rank 0's recovery line rolls it back: its transfers with rank " + peer +
                " wait until it rejoins");
            return;
        }
        if (checkpoints == null)
        {
            fail(new PeerFailedException(peer, "the job", reason));
        }
        else
        {
            restartNeeded("rank " + peer + " is lost (" + reason + ")", peer);
        }
    }

    /**
     * The job must restart from its newest global checkpoint.
     *
     * @param lostRank the rank lost, or -1 when the cause is not a loss.
     */
    void restartNeeded(final String why, final int lostRank)
    {
        stop("stopped for a restart: " + why + "; the job resumes from its newest global checkpoint (" +
            (checkpoints.globallyCommitted() < 0 ? "none yet" : "the cut at global index " +
                checkpoints.globallyCommitted()) + ") when started again with a higher SPILLWAY_INCARNATION",
            lostRank < 0 ? List.of() : List.of(lostRank));
    }

    /** A recovery line rolls this rank back: it stops, to resume where {@code why} says when started again. */
    void rollBack(final String why)
    {
        stop("stopped to roll back: " + why + "; it resumes there when started again with a higher " +
            "SPILLWAY_INCARNATION", List.of());
    }

    /** Stops this rank for a restart (first call wins). */
    private void stop(final String what, final List<Integer> lostRanks)
    {
        final RestartNeededException e;
        synchronized (this)
        {
            if (restart != null)
            {
                return;
            }
            e = new RestartNeededException("rank " + transport.rank() + " " + what, lostRanks,
                System.currentTimeMillis());
            restart = e;
        }
        // Not on the caller's thread: it may be the IO thread, whose own ring the cancellation goes through.
        final Thread stop = new Thread(() ->
        {
            cuts.release();
            System.err.println("spillway: " + e.getMessage());
            lost.completeExceptionally(e);
            local.stopCheckpoints();
            local.cancelAll();
            closeTransport();
        }, "spillway-rank-" + transport.rank() + "-restart");
        stop.setDaemon(true);
        stop.start();
    }

    /** Fails the job without checkpoints (first call wins), then closes the transport. */
    private void fail(final PeerFailedException e)
    {
        if (!lost.completeExceptionally(e))
        {
            return;
        }
        // Not on the transport's event thread, which may be the caller.
        final Thread close = new Thread(this::closeTransport, "spillway-rank-" + transport.rank() + "-job-lost");
        close.setDaemon(true);
        close.start();
    }

    /**
     * A transfer is about to hand an operation on an object's buffer to the transport; if true, it must call
     * {@link #postEnded} once it did.
     *
     * @return false once the job is lost: nothing may be posted on a buffer then.
     */
    boolean postBegins()
    {
        posting.incrementAndGet();
        if (lost.isDone())
        {
            posting.decrementAndGet();
            return false;
        }
        return true;
    }

    /** See {@link #postBegins}. */
    void postEnded()
    {
        posting.decrementAndGet();
    }

    /**
     * Closes the transport once the job is lost, after every post begun before the loss handed its operation to the
     * transport (none begins after it), so that the close ends them all.
     */
    private void closeTransport()
    {
        while (posting.get() > 0)
        {
            LockSupport.parkNanos(POLL_NANOS);
        }
        transport.close();
    }

    /** @return {@code e}, or with checkpoints, once a peer is lost, the restart it calls for. */
    RuntimeException restartOr(final RuntimeException e)
    {
        if (checkpoints != null && restart == null)
        {
            checkLost(false);
        }
        final RestartNeededException r = restart;
        if (r == null)
        {
            return e;
        }
        if (e != r)
        {
            r.addSuppressed(e);
        }
        return r;
    }
}
