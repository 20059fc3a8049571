package dev.spillway.resilience.buddy;

import dev.spillway.io.CrashPoints;
import dev.spillway.rdma.Message;
import dev.spillway.rdma.PeerFailedException;
import dev.spillway.rdma.Transport;
import dev.spillway.resilience.store.GenerationFiles;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

import static java.lang.System.Logger.Level.DEBUG;
import static java.lang.System.Logger.Level.WARNING;

/**
 * Keeps a partner rank's copy: on a thread of its own, writes the chunks its partner streams into
 * {@code DIR/rank-B/buddy-of-R/}, and at each generation's end forces and renames the files, keeps the two newest
 * generations (the job's newest global checkpoint among them) and answers that the copy is durable. Chunks of a
 * generation that never ended (the partner died sending it) are dropped when the next one starts. Messages of a
 * lost incarnation of the partner are fenced by the transport.
 */
final class BuddyKeeper implements AutoCloseable
{
    /** Generations kept: the newest and the one before, as in the partner's own directory. */
    static final int KEPT = 2;
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

    private void run()
    {
        final IncomingFiles files = new IncomingFiles(copy);
        final ByteBuffer message = BuddyWire.messageBuffer();
        try
        {
            while (true)
            {
                final Message m = BuddyWire.receive(transport, partner, BuddyWire.STREAM_TAG, message, () -> closed);
                if (m == null)
                {
                    return;
                }
                final byte kind = message.get();
                if (kind == BuddyWire.CHUNK)
                {
                    take(files, message);
                }
                else if (kind == BuddyWire.END)
                {
                    end(files, message);
                }
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        catch (final RuntimeException e)
        {
            // The partner was lost, or this rank closed: the job's loss handling takes over.
            LOG.log(closed || e instanceof PeerFailedException ? DEBUG : WARNING, "spillway: rank " + transport.rank() + " stops keeping rank " +
                partner + "'s checkpoint copy: " + e.getMessage());
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

    private void take(final IncomingFiles files, final ByteBuffer message)
    {
        if (!error.isEmpty())
        {
            return;
        }
        try
        {
            files.chunk(message);
        }
        catch (final Exception e)
        {
            error = e.getMessage();
        }
    }

    private void end(final IncomingFiles files, final ByteBuffer message) throws InterruptedException
    {
        final long gen = message.getLong();
        String result = error;
        error = "";
        try
        {
            final List<String> names = BuddyWire.names(message);
            CrashPoints.hit(CrashPoints.BUDDY_KEEP);
            if (result.isEmpty())
            {
                files.finish(gen, names);
                GenerationFiles.keepNewest(copy, KEPT, warning -> LOG.log(WARNING, "spillway: buddy copy: " +
                    warning));
            }
            else
            {
                files.discard();
            }
        }
        catch (final Exception e)
        {
            result = String.valueOf(e.getMessage());
        }
        BuddyWire.send(transport, partner, BuddyWire.DURABLE_TAG, BuddyWire.durable(gen, result));
    }

    @Override
    public void close()
    {
        closed = true;
        thread.interrupt();
    }
}
