package dev.spillway.resilience.buddy;

import dev.spillway.checkpoint.Cut;
import dev.spillway.io.CrashPoints;
import dev.spillway.memory.ByteUnits;
import dev.spillway.rdma.Transport;
import dev.spillway.rdma.WindowHandle;
import dev.spillway.ranks.CommitCopy;
import dev.spillway.resilience.store.GenerationFiles;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static java.lang.System.Logger.Level.DEBUG;
import static java.lang.System.Logger.Level.WARNING;

/**
 * Copies each generation a rank commits to its buddy, on a thread of its own: the files the generation needs that
 * this process has not sent yet (after a restart, all of them), then the end of the generation, as messages or put
 * into the buddy's ring window ({@link RingOutlet}); it is durable once the buddy answers that it forced and renamed
 * them. Should the buddy miss a file sent earlier, the whole generation is sent once more.
 */
final class BuddyShipper implements CommitCopy
{
    private static final System.Logger LOG = System.getLogger(BuddyShipper.class.getName());

    private final Transport transport;
    private final int buddy;
    private final Path dir;
    private final ExecutorService thread;
    private final KeeperWatch watch;
    private final ChunkOutlet outlet;
    private final OutgoingFiles out;
    private final Set<String> sent = new HashSet<>();
    private final ByteBuffer answer = ByteBuffer.allocateDirect(BuddyWire.FIELDS_BYTES + 8);
    private final Consumer<String> log;
    private volatile boolean closed;
    private volatile String state = "idle";
    /** Copy thread: generations made durable at the buddy. */
    private int copied;
    /** Copy thread: bytes of files the last attempt sent, and the time they took to go out. */
    private long sentBytes;
    private long sendNanos;

    /**
     * @param ring the buddy's ring window to put into, or null to send messages.
     * @param dir  the rank's own checkpoint directory.
     * @param log  told of the first generation copied; later ones are logged at DEBUG.
     */
    BuddyShipper(final Transport transport, final int buddy, final WindowHandle ring, final Path dir,
        final Consumer<String> log)
    {
        this.transport = transport;
        this.buddy = buddy;
        this.dir = dir;
        this.log = log;
        this.watch = new KeeperWatch(transport, buddy);
        this.outlet = ring == null ? new MessageOutlet(transport, buddy, BuddyWire.STREAM_TAG, watch) :
            new RingOutlet(transport, ring, () -> closed, watch);
        this.out = new OutgoingFiles(outlet, CrashPoints.BUDDY_STREAM);
        this.thread = Executors.newSingleThreadExecutor(r ->
        {
            final Thread t = new Thread(r, "spillway-rank-" + transport.rank() + "-buddy-copy");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public void copy(final Cut cut, final Runnable durable, final Consumer<String> failed)
    {
        copy(cut.generation(), cut.globalIndex(), durable, failed);
    }

    /** Copies generation {@code gen} of the global cut at {@code globalIndex}, on the copy thread. */
    void copy(final long gen, final long globalIndex, final Runnable durable, final Consumer<String> failed)
    {
        try
        {
            final long committed = System.nanoTime();
            thread.execute(() -> ship(gen, globalIndex, committed, durable, failed));
        }
        catch (final RejectedExecutionException e)
        {
            LOG.log(DEBUG, "spillway: generation " + gen + " committed after the buddy copy closed");
        }
    }

    @Override
    public String state()
    {
        final String waiting = outlet instanceof RingOutlet ring ? ring.waiting() : null;
        return waiting == null ? state : state + ": " + waiting;
    }

    /** @param committed when the generation was handed over, so a copy that waited behind another counts the wait. */
    private void ship(final long gen, final long globalIndex, final long committed, final Runnable durable,
        final Consumer<String> failed)
    {
        try
        {
            String error = attempt(gen);
            if (!error.isEmpty() && !closed)
            {
                LOG.log(DEBUG, "spillway: buddy rank " + buddy + " refused generation " + gen + " (" + error +
                    "); sending all of it again");
                sent.clear();
                error = attempt(gen);
            }
            if (closed)
            {
                return;
            }
            if (!error.isEmpty())
            {
                failed.accept("buddy rank " + buddy + " could not keep generation " + gen + ": " + error);
                return;
            }
            state = "idle";
            final String line = String.format("checkpoint: generation %d (global cut %d) is durable at buddy rank %d " +
                "%.3f s after its local commit (%s sent in %.3f s)", gen, globalIndex, buddy,
                (System.nanoTime() - committed) / 1e9, ByteUnits.format(sentBytes), sendNanos / 1e9);
            if (copied++ == 0)
            {
                log.accept(line + "; later copies are logged with SPILLWAY_DEBUG=1");
            }
            else
            {
                LOG.log(DEBUG, "spillway: " + line);
            }
            durable.run();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        catch (final Exception e)
        {
            // Told first: abandoning may wait for a send to end, which only its timeout may do.
            try
            {
                if (!closed)
                {
                    failed.accept("copying generation " + gen + " to buddy rank " + buddy + " failed: " +
                        e.getMessage());
                }
            }
            finally
            {
                outlet.abandon();
            }
        }
    }

    /** @return the buddy's error, empty once the generation is durable there. */
    private String attempt(final long gen) throws Exception
    {
        watch.check();
        final long started = System.nanoTime();
        final List<String> names = GenerationFiles.names(dir, gen);
        final long before = out.bytes();
        for (final String name : names)
        {
            if (!sent.contains(name) || name.endsWith(".manifest"))
            {
                state = "sending " + name + " of generation " + gen + " to buddy rank " + buddy;
                out.send(gen, dir.resolve(name));
            }
        }
        out.drain();
        sentBytes = out.bytes() - before;
        sendNanos = System.nanoTime() - started;
        CrashPoints.hit(CrashPoints.BUDDY_BEFORE_END);
        out.end(gen, names);
        state = "waiting for buddy rank " + buddy + " to make generation " + gen + " durable";
        while (true)
        {
            if (BuddyWire.receive(transport, buddy, BuddyWire.DURABLE_TAG, answer, () -> closed, watch) == null)
            {
                return "closed";
            }
            final long answered = answer.getLong();
            if (answered == gen || answered == -1)
            {
                break;
            }
        }
        final String error = BuddyWire.rest(answer);
        if (error.isEmpty())
        {
            // Files no longer named are collected at both ends: only the generation's own are worth remembering.
            sent.clear();
            sent.addAll(names);
        }
        return error;
    }

    @Override
    public void close()
    {
        closed = true;
        thread.shutdownNow();
        try
        {
            if (!thread.awaitTermination(BuddyWire.STOP_MS, TimeUnit.MILLISECONDS))
            {
                LOG.log(WARNING, "spillway: the copy of rank " + transport.rank() + "'s checkpoints to buddy rank " +
                    buddy + " did not stop within " + BuddyWire.STOP_MS + " ms");
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
