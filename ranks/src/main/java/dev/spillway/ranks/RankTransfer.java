package dev.spillway.ranks;

import dev.spillway.TaskContext;
import dev.spillway.io.CrashPoints;
import dev.spillway.rdma.Header;
import dev.spillway.rdma.Message;
import dev.spillway.rdma.Transport;
import dev.spillway.spi.AsyncTaskBody;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * The body of an internal task moving one version of a data object between ranks: a send (the task reads the object)
 * or a receive (the task writes the local copy). Both run without holding a worker; the object stays resident, and
 * counted against the budget, until the transfer completes. The send first sends a small notice; the receive is
 * admitted, and takes DRAM, only once that notice arrived, so a rank never fills its budget with buffers waiting
 * for data another rank has not produced yet (two such ranks would wait on each other for ever). Once any rank is
 * lost, notices and sends still waiting fail: the peer they wait for may be waiting on the lost one. A receive whose
 * notice came is left to complete or fail by itself, since the transport may still write into its buffer.
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
    /** The notice's payload: only its header matters, so every send shares these bytes, never written. */
    private static final ByteBuffer NOTICE = ByteBuffer.allocateDirect(NOTICE_BYTES);

    private final Transport transport;
    private final Placement object;
    private final int peer;
    private final int version;
    private final boolean send;
    private final RankCounters counters;
    private final CompletableFuture<Void> jobLost;

    private RankTransfer(final Transport transport, final Placement object, final int peer, final boolean send,
        final RankCounters counters, final CompletableFuture<Void> jobLost)
    {
        this.jobLost = jobLost;
        this.transport = transport;
        this.object = object;
        this.peer = peer;
        this.version = object.version;
        this.send = send;
        this.counters = counters;
    }

    /** @param jobLost fails once any rank is lost: a wait for a live peer may then never end. */
    static RankTransfer send(final Transport transport, final Placement object, final int target,
        final RankCounters counters, final CompletableFuture<Void> jobLost)
    {
        return new RankTransfer(transport, object, target, true, counters, jobLost);
    }

    static RankTransfer receive(final Transport transport, final Placement object, final int source,
        final RankCounters counters, final CompletableFuture<Void> jobLost)
    {
        return new RankTransfer(transport, object, source, false, counters, jobLost);
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
            return null;
        }
        return notice().applyToEither(jobLost, ignored -> null);
    }

    @Override
    public String gateReason()
    {
        return "rank " + peer + " to send '" + object.local.tag() + "' v" + version;
    }

    @Override
    public CompletableFuture<?> start(final TaskContext ctx)
    {
        if (send)
        {
            CrashPoints.hit(CrashPoints.TRANSFER_SEND);
            final int bytes = object.local.size();
            final CompletableFuture<Void> notice = transport.send(peer, header(noticeTag()), NOTICE);
            final CompletableFuture<Void> data = transport.send(peer, header(object.tag), ctx.buffer(object.local));
            return CompletableFuture.allOf(notice, data).thenRun(() -> counters.sent(bytes))
                .applyToEither(jobLost, ignored -> null);
        }
        return data(ctx.buffer(object.local)).thenAccept(m ->
        {
            if (m.length() != object.local.size())
            {
                throw new IllegalStateException(name() + ": rank " + peer + " sent " + m.length() + " B, expected " +
                    object.local.size() + " B: the ranks do not run the same program");
            }
            counters.received(m.length());
        });
    }

    /** @return completes once the notice of this version came; those of older versions are dropped. */
    private CompletableFuture<Void> notice()
    {
        return transport.receive(peer, noticeTag(), ByteBuffer.allocateDirect(NOTICE_BYTES)).thenCompose(m ->
            olderDropped(m) ? notice() : CompletableFuture.completedFuture(null));
    }

    /** @return the data message of this version; data of an older version is dropped and the buffer reused. */
    private CompletableFuture<Message> data(final ByteBuffer dst)
    {
        return transport.receive(peer, object.tag, dst).thenCompose(m ->
            olderDropped(m) ? data(dst) : CompletableFuture.completedFuture(m));
    }

    /** @return true for a duplicate of an older version, counted; fails on a newer version. */
    private boolean olderDropped(final Message m)
    {
        final long v = m.header().seq();
        if (v < version)
        {
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
        return new Header(Header.NO_RANK, tag, 0, 0, version);
    }

    private int noticeTag()
    {
        return object.tag + NOTICE_TAG_OFFSET;
    }
}
