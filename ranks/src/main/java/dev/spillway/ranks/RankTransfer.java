package dev.spillway.ranks;

import dev.spillway.TaskContext;
import dev.spillway.io.CrashPoints;
import dev.spillway.rdma.Header;
import dev.spillway.rdma.Message;
import dev.spillway.rdma.Transport;
import dev.spillway.spi.AsyncTaskBody;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The body of an internal task moving one version of a data object between ranks: a send (the task reads the object)
 * or a receive (the task writes the local copy). Both run without holding a worker; the object stays resident, and
 * counted against the budget, until the transfer completes. The send first sends a small notice; the receive is
 * admitted, and takes DRAM, only once that notice arrived, so a rank never fills its budget with buffers waiting
 * for data another rank has not produced yet (two such ranks would wait on each other for ever). Once any rank is
 * lost, the transfer fails: the peer it waits for may be waiting on the lost one. But while an operation on the
 * object's buffer is posted (the data of a send, the receive of the data), it fails only once that operation ended:
 * the transport may still read or write the buffer, which the engine reuses as soon as the task ends. A rank whose
 * job is lost closes its transport ({@link JobLoss}), which ends them; no operation is posted after the loss.
 *
 * <p>With a {@link RankProtocol}, both messages carry the sender's epoch and phase in their headers and the notice
 * carries the transfer's ssn, which must be the one the receive expects; once the data landed, the receiver tells
 * the protocol and sends the acks it says are due. With a protocol, a rank that survives a peer's loss keeps its
 * transfers with that peer: sends wait until the peer rejoined and greeted this rank ({@link PeerSessions}), then
 * go again unless the peer holds them already; receives are posted again once it rejoined.
 *
 * <p>Receives match on (source, tag, version): a notice or data of an older version is a duplicate (a replay), dropped
 * and counted, and the receive waits on. One sender's messages with one tag arrive in order, so a newer version
 * before this one means that the ranks run different programs: the receive fails at once, naming both versions.
 */
final class RankTransfer implements AsyncTaskBody
{
    /** Added to an object's tag for the notice that precedes its data. */
    static final int NOTICE_TAG_OFFSET = 1 << 30;
    private static final int NOTICE_BYTES = 8;

    private final Transport transport;
    private final Placement object;
    private final int peer;
    private final int version;
    private final boolean send;
    private final RankCounters counters;
    private final JobLoss loss;
    private final CompletableFuture<Void> jobLost;
    /** A send's stamp; for a receive, the expected ssn with the sender's epoch and phase once the data landed. */
    private RankProtocol.Stamp stamp;
    private final RankProtocol protocol;
    private final AckMessages acks;
    private final PeerSessions sessions;
    /** Whether the send was posted once already (its payload is captured). */
    private boolean posted;
    /** The ssn the notice carried. */
    private volatile long noticedSsn = RankProtocol.Stamp.NONE.ssn();
    /** What the started transfer waits for, for wait reports. */
    private volatile String waitingFor = "its start";
    /** Messages of older versions this receive dropped. */
    private volatile int dropped;
    /** The operations last posted on the object's buffer, or null; guarded by this. */
    private CompletableFuture<?> onBuffer;

    private RankTransfer(final Transport transport, final Placement object, final int peer, final boolean send,
        final RankCounters counters, final JobLoss loss, final RankProtocol.Stamp stamp,
        final RankProtocol protocol, final AckMessages acks, final PeerSessions sessions)
    {
        this.loss = loss;
        this.sessions = sessions;
        this.stamp = stamp;
        this.protocol = protocol;
        this.acks = acks;
        this.jobLost = loss.future();
        this.transport = transport;
        this.object = object;
        this.peer = peer;
        this.version = object.version;
        this.send = send;
        this.counters = counters;
    }

    /**
     * @param loss    fails its future once any rank is lost: a wait for a live peer may then never end.
     * @param stamp   what the transfer carries for the protocol ({@link RankProtocol.Stamp#NONE} without one).
     * @param protocol told when the send completed; says when it is skipped.
     * @param sessions the protocol's peer sessions, or null without one.
     */
    static RankTransfer send(final Transport transport, final Placement object, final int target,
        final RankCounters counters, final JobLoss loss, final RankProtocol.Stamp stamp,
        final RankProtocol protocol, final PeerSessions sessions)
    {
        return new RankTransfer(transport, object, target, true, counters, loss, stamp, protocol, null, sessions);
    }

    /**
     * @param ssn      the position in the channel the protocol expects, or that of {@link RankProtocol.Stamp#NONE}.
     * @param protocol told of the reception once the data landed.
     * @param acks     sends the acks the protocol says are due; null without a protocol.
     * @param sessions the protocol's peer sessions, or null without one.
     */
    static RankTransfer receive(final Transport transport, final Placement object, final int source,
        final RankCounters counters, final JobLoss loss, final long ssn,
        final RankProtocol protocol, final AckMessages acks, final PeerSessions sessions)
    {
        return new RankTransfer(transport, object, source, false, counters, loss,
            new RankProtocol.Stamp(ssn, 0, 0), protocol, acks, sessions);
    }

    /** @return the internal task's name, which errors and wait reports show. */
    String name()
    {
        return (send ? "send '" + object.local.tag() + "' v" + version + " to rank " :
            "receive '" + object.local.tag() + "' v" + version + " from rank ") + peer;
    }

    /** A receive takes no DRAM until the sender announced that it holds the version and is sending it. */
    @Override
    public CompletableFuture<?> gate()
    {
        if (send)
        {
            final CompletableFuture<Void> ready = sessions == null ? null : sessions.ready(peer);
            return ready == null || ready.isDone() ? null : ready.applyToEither(jobLost, ignored -> null);
        }
        return notice().applyToEither(jobLost, ignored -> null);
    }

    @Override
    public String gateReason()
    {
        return send ? (sessions == null ? "nothing" : sessions.waitReason(peer)) :
            "rank " + peer + " to send '" + object.local.tag() + "' v" + version + (protocol.active() ?
                " (transfer " + stamp.ssn() + " of their channel, incarnation " + transport.incarnation(peer) + ")" :
                "");
    }

    @Override
    public String runningReason()
    {
        return waitingFor + (dropped == 0 ? "" : " (" + dropped + " message(s) of older versions dropped)");
    }

    @Override
    public CompletableFuture<?> start(final TaskContext ctx)
    {
        if (send)
        {
            CrashPoints.hit(CrashPoints.TRANSFER_SEND);
            return endsWithTheBuffer(sendOnce(ctx.buffer(object.local)));
        }
        return endsWithTheBuffer(data(ctx.buffer(object.local)).thenAccept(m ->
        {
            if (m.length() != object.local.size())
            {
                throw new IllegalStateException(name() + ": rank " + peer + " sent " + m.length() + " bytes, expected " +
                    object.local.size() + ": the ranks do not run the same program");
            }
            counters.received(m.length());
            if (protocol.active())
            {
                acknowledge(m);
            }
        }));
    }

    /**
     * @return {@code work}'s outcome, or the job's loss, which comes only once no operation posted on the buffer is
     *         still running (either way round, {@code jobLost} holds nothing of this transfer once it ended).
     */
    private CompletableFuture<Void> endsWithTheBuffer(final CompletableFuture<Void> work)
    {
        return work.applyToEither(jobLost, ignored -> (Void)null).exceptionallyCompose(failure ->
        {
            final CompletableFuture<?> posted;
            synchronized (this)
            {
                posted = onBuffer;
            }
            if (posted == null || posted.isDone())
            {
                return CompletableFuture.failedFuture(failure);
            }
            waitingFor = "its posted " + (send ? "data" : "receive") + " to end, as the job was lost (" + failure +
                ")";
            return posted.handle((ignored, ended) -> null)
                .thenCompose(ended -> CompletableFuture.<Void>failedFuture(failure));
        });
    }

    /**
     * Posts {@code operation} on the object's buffer, unless the job is lost ({@link JobLoss#postBegins}: the
     * transport closes only once every post begun before the loss was handed to it).
     *
     * @return its future, or the job's loss.
     */
    private <T> CompletableFuture<T> onBuffer(final Supplier<CompletableFuture<T>> operation)
    {
        synchronized (this)
        {
            if (loss.postBegins())
            {
                try
                {
                    final CompletableFuture<T> posted = operation.get();
                    onBuffer = posted;
                    return posted;
                }
                finally
                {
                    loss.postEnded();
                }
            }
        }
        final CompletableFuture<T> lost = new CompletableFuture<>();
        jobLost.whenComplete((ignored, failure) -> lost.completeExceptionally(failure));
        return lost;
    }

    /**
     * Sends the notice and the data, unless the peer holds them or they were sent again already; once the peer is
     * back and greeted this rank if it was lost, or is not ready.
     */
    private CompletableFuture<Void> sendOnce(final ByteBuffer payload)
    {
        if (protocol.active() && (protocol.suppressed(peer, stamp.ssn()) || protocol.replayed(peer, stamp.ssn())))
        {
            return CompletableFuture.completedFuture(null);
        }
        final int bytes = object.local.size();
        final ByteBuffer ssn = ByteBuffer.allocateDirect(NOTICE_BYTES).putLong(0, stamp.ssn());
        final CompletableFuture<Void> sent;
        final int incarnation;
        synchronized (sessions == null ? this : sessions.posting(peer))
        {
            if (sessions != null && !sessions.ready(peer).isDone())
            {
                waitingFor = sessions.waitReason(peer);
                return sessions.ready(peer).thenCompose(ready -> sendOnce(payload));
            }
            if (protocol.capturesAtSend(peer) && !posted)
            {
                protocol.captured(RankProtocol.logTag(object.local.tag(), version, peer), payload);
            }
            posted = true;
            protocol.posting(peer, stamp.ssn());
            incarnation = transport.incarnation(peer);
            sent = onBuffer(() -> CompletableFuture.allOf(transport.send(peer, header(noticeTag()), ssn),
                transport.send(peer, header(object.tag), payload)));
            waitingFor = "its notice and data to reach rank " + peer + " (incarnation " + incarnation + ")" +
                (protocol.active() ? " as transfer " + stamp.ssn() + " of the channel" : "");
        }
        return sent.handle((ignored, failure) ->
        {
            if (failure == null)
            {
                counters.sent(bytes);
                return CompletableFuture.<Void>completedFuture(null);
            }
            if (retries(failure))
            {
                waitingFor = "rank " + peer + " to rejoin (incarnation " + incarnation + " was lost) and be sent again";
                return sessions.after(peer, incarnation).thenCompose(up -> sessions.ready(peer))
                    .thenCompose(ready -> sendOnce(payload));
            }
            return CompletableFuture.<Void>failedFuture(failure);
        }).thenCompose(f -> f);
    }

    /** @return whether {@code failure} is the loss of the peer, which this rank survives: the transfer waits. */
    private boolean retries(final Throwable failure)
    {
        return sessions != null && !jobLost.isDone() && PeerSessions.peerLost(failure, peer);
    }

    /** Tells the protocol that the data landed, checking the transfer's ssn, and sends the acks now due. */
    private void acknowledge(final Message m)
    {
        if (noticedSsn != stamp.ssn())
        {
            throw new IllegalStateException(name() + ": rank " + peer + " sent it as transfer " + noticedSsn +
                " of their channel, expected " + stamp.ssn() + ": the ranks do not run the same program");
        }
        stamp = new RankProtocol.Stamp(stamp.ssn(), m.header().epoch(), m.header().phase());
        acks.send(peer, protocol.received(peer, stamp));
    }

    /** @return completes once the notice of this version came; those of older versions are dropped. */
    private CompletableFuture<Void> notice()
    {
        final ByteBuffer ssn = ByteBuffer.allocateDirect(NOTICE_BYTES);
        final int incarnation = transport.incarnation(peer);
        return transport.receive(peer, noticeTag(), ssn).handle((m, failure) ->
        {
            if (failure != null)
            {
                return retries(failure) ? sessions.after(peer, incarnation).thenCompose(up -> notice()) :
                    CompletableFuture.<Void>failedFuture(failure);
            }
            if (olderDropped(m))
            {
                return notice();
            }
            noticedSsn = ssn.getLong(0);
            return CompletableFuture.<Void>completedFuture(null);
        }).thenCompose(f -> f);
    }

    /** @return the data message of this version; data of an older version is dropped and the buffer reused. */
    private CompletableFuture<Message> data(final ByteBuffer dst)
    {
        final int incarnation = transport.incarnation(peer);
        waitingFor = "rank " + peer + "'s data (incarnation " + incarnation + (protocol.active() ? ", transfer " +
            stamp.ssn() + " of the channel, whose notice came with " + noticedSsn : "") + ")";
        return onBuffer(() -> transport.receive(peer, object.tag, dst)).handle((m, failure) ->
        {
            if (failure != null)
            {
                waitingFor = "rank " + peer + " to rejoin (incarnation " + incarnation + " was lost) and send again";
                return retries(failure) ? sessions.after(peer, incarnation).thenCompose(up -> notice())
                    .thenCompose(n -> data(dst)) :
                    CompletableFuture.<Message>failedFuture(failure);
            }
            return olderDropped(m) ? data(dst) : CompletableFuture.completedFuture(m);
        }).thenCompose(f -> f);
    }

    /** @return true for a duplicate of an older version, counted; fails on a newer version. */
    private boolean olderDropped(final Message m)
    {
        final long v = m.header().seq();
        if (v < version)
        {
            dropped++;
            counters.duplicates.incrementAndGet();
            return true;
        }
        if (v > version)
        {
            throw new IllegalStateException(name() + ": rank " + m.header().rank() + " sent version " + v +
                " before version " + version + ": the ranks do not run the same program");
        }
        return false;
    }

    private Header header(final int tag)
    {
        return new Header(Header.NO_RANK, tag, stamp.epoch(), stamp.phase(), version);
    }

    private int noticeTag()
    {
        return object.tag + NOTICE_TAG_OFFSET;
    }
}
