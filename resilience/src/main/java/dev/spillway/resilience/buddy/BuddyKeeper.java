package dev.spillway.resilience.buddy;

import dev.spillway.io.CrashPoints;
import dev.spillway.rdma.Message;
import dev.spillway.rdma.PeerFailedException;
import dev.spillway.rdma.Transport;
import dev.spillway.rdma.TransportTimeoutException;
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
 * generations and answers whether the copy is durable. The partner's newest global checkpoint is among them: a rank
 * begins a cut only once the cut two before it is globally committed, and a restart first drops copies newer than
 * the cut it resumes from ({@link GenerationFiles#dropAfter}). Chunks of a generation that never ended (the partner
 * died sending it) are dropped when the next one starts; messages of a lost incarnation are fenced by the transport.
 * {@link #POSTED} receives stand at once, so a chunk can land while the one before is written.
 */
final class BuddyKeeper implements AutoCloseable
{
    /** Receives posted ahead, each with its own buffer. */
    static final int POSTED = 4;
    private static final System.Logger LOG = System.getLogger(BuddyKeeper.class.getName());

    private final Transport transport;
    private final int partner;
    private final Path copy;
    private final Thread thread;
    private volatile boolean closed;
    /** Keeper thread: why the generation arriving cannot be kept, empty while it can. */
    private String error = "";

    private BuddyKeeper(final Transport transport, final int partner, final Path copy)
    {
        this.transport = transport;
        this.partner = partner;
        this.copy = copy;
        this.thread = new Thread(this::run, "spillway-rank-" + transport.rank() + "-buddy-of-" + partner);
        thread.setDaemon(true);
    }

    /** Starts keeping {@code partner}'s copy in {@code copy}. */
    static BuddyKeeper start(final Transport transport, final int partner, final Path copy)
    {
        final BuddyKeeper keeper = new BuddyKeeper(transport, partner, copy);
        keeper.thread.start();
        return keeper;
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
                posted.add(post(BuddyWire.messageBuffer()));
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
        catch (final RuntimeException e)
        {
            // The partner was lost, or this rank closed: the job's loss handling takes over.
            LOG.log(closed || e instanceof PeerFailedException ? DEBUG : WARNING, "spillway: rank " +
                transport.rank() + " stops keeping rank " + partner + "'s checkpoint copy: " + e.getMessage());
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

    private Posted post(final ByteBuffer buffer)
    {
        return new Posted(buffer, transport.receive(partner, BuddyWire.STREAM_TAG, buffer.clear()));
    }

    /** Takes one message; a failure to keep the copy is answered at the generation's end, never thrown. */
    private void handle(final IncomingFiles files, final ByteBuffer message) throws InterruptedException
    {
        final byte kind = message.get();
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
                GenerationFiles.keepNewest(copy, BuddyCheckpoints.KEPT, warning -> LOG.log(WARNING,
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
