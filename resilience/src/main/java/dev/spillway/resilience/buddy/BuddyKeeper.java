package dev.spillway.resilience.buddy;

import dev.spillway.checkpoint.Cut;
import dev.spillway.io.CrashPoints;
import dev.spillway.rdma.Collectives;
import dev.spillway.rdma.Header;
import dev.spillway.rdma.Message;
import dev.spillway.rdma.PeerFailedException;
import dev.spillway.rdma.Transport;
import dev.spillway.rdma.TransportTimeoutException;
import dev.spillway.rdma.Window;
import dev.spillway.resilience.store.GenerationFiles;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import static java.lang.System.Logger.Level.DEBUG;
import static java.lang.System.Logger.Level.WARNING;

/**
 * Keeps a partner rank's copy: on a thread of its own, writes the chunks its partner streams into
 * {@code DIR/rank-B/buddy-of-R/}, and at each generation's end forces and renames the files, keeps the three newest
 * generations and every one from the newest global cut this rank recorded on ({@link #keepFrom}), and answers whether
 * the copy is durable. The partner's newest global checkpoint is among them: a rank
 * begins a cut only once the cut two before it is globally committed, and a restart first drops copies newer than
 * the cut it resumes from ({@link GenerationFiles#dropAfter}). Chunks of a generation that never ended (the partner
 * died sending it) are dropped when the next one starts; messages of a lost incarnation are fenced by the transport.
 * {@link #POSTED} receives stand at once, so a message can land while a chunk is written. A keeper that stops for
 * any other reason (a message it cannot take) tells its partner why, so the partner's copy fails instead of waiting.
 *
 * <p>With {@link BuddyCheckpoints.Stream#PUTS}, the partner puts each message into a slot of this rank's ring window
 * and announces it ({@link RingOutlet}); the keeper takes the slot and gives it back. Every start of a job makes a
 * new ring, which stays registered until the transport closes: with UCX over TCP a put is applied by this rank's
 * progress thread at the address it names, so a window must not go while a partner (or a zombie of it) may put.
 */
final class BuddyKeeper implements AutoCloseable
{
    /** Receives posted ahead, each with its own buffer. */
    static final int POSTED = 4;
    private static final System.Logger LOG = System.getLogger(BuddyKeeper.class.getName());

    private final Transport transport;
    private final int partner;
    private final Path copy;
    private final Window ring;
    private final SlotSends credits;
    private final Thread thread;
    private volatile boolean closed;
    /** The global index of the oldest cut whose copy is kept whether or not it is among the newest. */
    private volatile long keptFrom = Long.MAX_VALUE;
    /** Keeper thread: why the generation arriving cannot be kept, empty while it can. */
    private String error = "";

    private BuddyKeeper(final Transport transport, final int partner, final Path copy,
        final BuddyCheckpoints.Stream stream)
    {
        this.transport = transport;
        this.partner = partner;
        this.copy = copy;
        this.ring = stream == BuddyCheckpoints.Stream.PUTS ? transport.createWindow("ring for rank " + partner +
            "'s checkpoint copy", BuddyWire.SLOTS * BuddyWire.SLOT_BYTES) : null;
        this.credits = ring == null ? null : new SlotSends(transport, partner, BuddyWire.CREDIT_TAG);
        this.thread = new Thread(this::run, "spillway-rank-" + transport.rank() + "-buddy-of-" + partner);
        thread.setDaemon(true);
    }

    /**
     * Starts keeping {@code partner}'s copy in {@code copy}; with {@link BuddyCheckpoints.Stream#PUTS} the partner
     * needs {@link #ring()}'s handle.
     */
    static BuddyKeeper start(final Transport transport, final int partner, final Path copy,
        final BuddyCheckpoints.Stream stream)
    {
        final BuddyKeeper keeper = new BuddyKeeper(transport, partner, copy, stream);
        keeper.thread.start();
        return keeper;
    }

    /**
     * Keeps every copy of a cut at or after {@code globalIndex} from now on: the job's newest global cut, which this
     * rank recorded. Should rank 0's record be lost, the job resumes from the newest cut a surviving rank recorded,
     * older perhaps than the partner's three newest.
     */
    void keepFrom(final long globalIndex)
    {
        if (globalIndex != Cut.LOCAL)
        {
            keptFrom = globalIndex;
        }
    }

    /** @return the window the partner puts its messages into, or null when it sends them. */
    Window ring()
    {
        return ring;
    }

    private record Posted(ByteBuffer buffer, CompletableFuture<Message> message)
    {
    }

    private void run()
    {
        final IncomingFiles files = new IncomingFiles(copy);
        // Receives match in the order they were posted, so the queue's head always gets the next message.
        final ArrayDeque<Posted> posted = new ArrayDeque<>();
        try
        {
            for (int i = 0; i < POSTED; i++)
            {
                posted.add(post(ring == null ? BuddyWire.messageBuffer() : BuddyWire.noticeBuffer()));
            }
            while (!closed)
            {
                final Posted head = posted.poll();
                final Message m;
                try
                {
                    m = head.message().get();
                }
                catch (final ExecutionException e)
                {
                    if (e.getCause() instanceof TransportTimeoutException)
                    {
                        posted.add(post(head.buffer()));
                        continue;
                    }
                    throw e.getCause() instanceof RuntimeException re ? re :
                        new IllegalStateException(String.valueOf(e.getCause()), e.getCause());
                }
                final ByteBuffer message = head.buffer().limit(m.length()).position(0);
                handle(files, message);
                posted.add(post(head.buffer()));
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        catch (final RuntimeException | Error e)
        {
            if (closed || e instanceof PeerFailedException)
            {
                // The partner was lost, or this rank closed: the job's loss handling takes over.
                LOG.log(DEBUG, "spillway: rank " + transport.rank() + " stops keeping rank " + partner +
                    "'s checkpoint copies: " + e.getMessage());
            }
            else
            {
                tellStopped(e);
            }
            if (e instanceof Error fatal)
            {
                throw fatal;
            }
        }
        finally
        {
            try
            {
                files.discard();
            }
            catch (final Exception e)
            {
                LOG.log(DEBUG, "spillway: dropping a partial buddy copy failed: " + e);
            }
        }
    }

    /** Tells the partner, whose copy would otherwise wait for this keeper until the job ends, why it stopped. */
    private void tellStopped(final Throwable cause)
    {
        final String why = "buddy rank " + transport.rank() + " stopped keeping rank " + partner + "'s checkpoint " +
            "copies: " + (cause.getMessage() == null ? cause.toString() : cause.getMessage());
        LOG.log(WARNING, "spillway: " + why);
        try
        {
            Collectives.await(transport.send(partner, Header.of(BuddyWire.STOPPED_TAG), BuddyWire.text(why)));
        }
        catch (final RuntimeException e)
        {
            LOG.log(WARNING, "spillway: rank " + partner + " could not be told: " + e.getMessage());
        }
    }

    private Posted post(final ByteBuffer buffer)
    {
        return new Posted(buffer, transport.receive(partner, BuddyWire.STREAM_TAG, buffer.clear()));
    }

    /** Takes a message, or the slot a notice names; a failure to keep the copy is answered at the generation's end. */
    private void handle(final IncomingFiles files, final ByteBuffer message) throws InterruptedException
    {
        final byte kind = message.get();
        if (kind != BuddyWire.SLOT)
        {
            take(files, kind, message);
            return;
        }
        final int slot;
        final int length;
        if (ring == null || message.remaining() != BuddyWire.NOTICE_FIELDS || (slot = message.getInt()) < 0 ||
            slot >= BuddyWire.SLOTS || (length = message.getInt()) < 1 || length > BuddyWire.SLOT_BYTES)
        {
            throw new IllegalStateException("rank " + partner + " sent a notice that names no slot of a ring (" +
                message.limit() + " bytes)");
        }
        // A slice reads big-endian, the wire's order.
        final ByteBuffer held = ring.buffer().position(slot * BuddyWire.SLOT_BYTES)
            .limit(slot * BuddyWire.SLOT_BYTES + length).slice();
        take(files, held.get(), held);
        giveBack(slot);
    }

    private void take(final IncomingFiles files, final byte kind, final ByteBuffer message)
        throws InterruptedException
    {
        if (kind == BuddyWire.END)
        {
            end(files, message);
            return;
        }
        if (kind != BuddyWire.CHUNK || !error.isEmpty())
        {
            return;
        }
        try
        {
            files.chunk(message);
        }
        catch (final Exception e)
        {
            error = "chunk refused: " + e;
        }
    }

    private void giveBack(final int slot)
    {
        credits.buffer(slot).putInt(slot);
        credits.send(slot);
    }

    private void end(final IncomingFiles files, final ByteBuffer message) throws InterruptedException
    {
        long gen = -1;
        String result = error;
        error = "";
        try
        {
            gen = message.getLong();
            final List<String> names = BuddyWire.names(message);
            CrashPoints.hit(CrashPoints.BUDDY_KEEP);
            if (result.isEmpty())
            {
                files.finish(gen, names);
                GenerationFiles.keepNewest(copy, BuddyCheckpoints.KEPT, keptFrom, warning -> LOG.log(WARNING,
                    "spillway: buddy copy: " + warning));
            }
            else
            {
                files.discard();
            }
        }
        catch (final Exception e)
        {
            result = e.toString();
        }
        BuddyWire.send(transport, partner, BuddyWire.DURABLE_TAG, BuddyWire.durable(gen, result));
    }

    @Override
    public void close()
    {
        closed = true;
        thread.interrupt();
        try
        {
            thread.join(BuddyWire.STOP_MS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive())
        {
            LOG.log(WARNING, "spillway: rank " + transport.rank() + "'s keeper of rank " + partner + "'s copy did " +
                "not stop within " + BuddyWire.STOP_MS + " ms; it may still write in " + copy);
        }
    }
}
