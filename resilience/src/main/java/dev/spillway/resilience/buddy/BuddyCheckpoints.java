package dev.spillway.resilience.buddy;

import dev.spillway.checkpoint.Cut;
import dev.spillway.io.CrashPoints;
import dev.spillway.rdma.Collectives;
import dev.spillway.rdma.Transport;
import dev.spillway.ranks.CommitCopy;
import dev.spillway.resilience.store.GenerationFiles;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Buddy checkpoints in {@code staged} mode (design part B.2): every generation a rank commits in
 * {@code DIR/rank-R/} is copied to its buddy, which keeps it on its own disk in {@code DIR/rank-B/buddy-of-R/}, and
 * a global checkpoint counts only once every rank's copy is durable at its buddy. A rank whose directory lost the
 * global checkpoint the job restarts from (its node and disk were lost) fetches the copy back from its buddy before
 * its store opens; the store then verifies every block's checksum as usual. Files travel as two-sided messages of
 * 1 MiB chunks, each with a CRC32C.
 *
 * <pre>{@code
 * long restored = GlobalCheckpoints.agreeOnRestore(transport, root);
 * BuddyCheckpoints buddies = BuddyCheckpoints.start(transport, root, restored, System.err::println);
 * globalCheckpoints.copyCommitsTo(buddies);
 * }</pre>
 */
public final class BuddyCheckpoints implements CommitCopy
{
    /**
     * Generations a rank keeps in its own directory ({@code FileCheckpointStore.Builder.keep}) and its buddy keeps of
     * it: the newest global checkpoint and the two cuts a rank may commit after it while their copies are in flight.
     */
    public static final int KEPT = 3;

    private static final String COPY_PREFIX = "buddy-of-";

    private final BuddyShipper shipper;
    private final BuddyKeeper keeper;
    private final String restoredFrom;
    private final double fetchSeconds;

    private BuddyCheckpoints(final BuddyShipper shipper, final BuddyKeeper keeper, final String restoredFrom,
        final double fetchSeconds)
    {
        this.shipper = shipper;
        this.keeper = keeper;
        this.restoredFrom = restoredFrom;
        this.fetchSeconds = fetchSeconds;
    }

    /**
     * A collective, after the ranks agreed on the global cut to restore and before any store opens: places the
     * buddies, brings back from its buddy the copy of every rank whose own directory lacks that cut, and starts
     * copying and keeping.
     *
     * @param root     the job's checkpoint directory, holding {@code rank-R/}.
     * @param restored the global cut's index, or {@link Cut#LOCAL} when the job starts from the beginning.
     * @param log      told of the placement, fetches and copies, for people.
     * @throws IOException when this rank needs its copy and no surviving one exists: "no surviving copy of rank r",
     *                     naming where it looked and why each place failed.
     */
    public static BuddyCheckpoints start(final Transport transport, final Path root, final long restored,
        final Consumer<String> log) throws IOException
    {
        if (transport.size() < 2)
        {
            throw new IllegalArgumentException("buddy checkpoints need at least 2 ranks, the job has " +
                transport.size());
        }
        final int me = transport.rank();
        final Path own = root.resolve("rank-" + me);
        final String problem = restored == Cut.LOCAL ? null : GenerationFiles.incomplete(own, restored);
        Files.createDirectories(own);
        final byte[][] all = Collectives.allGather(transport, BuddyWire.GATHER_TAG, gathered(hostName(), problem),
            BuddyWire.FIELDS_BYTES);
        final List<String> hosts = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        for (final byte[] bytes : all)
        {
            final ByteBuffer b = ByteBuffer.wrap(bytes);
            hosts.add(BuddyWire.getString(b));
            problems.add(b.get() == 1 ? BuddyWire.rest(b) : null);
        }
        final BuddyPlacement placement = BuddyPlacement.forHosts(hosts);
        final int buddy = placement.buddyOf(me);
        final int partner = partnerOf(placement, me);
        if (me == 0)
        {
            log.accept("checkpoint: buddies " + describe(placement));
            placement.warnings().forEach(w -> log.accept("checkpoint: " + w));
        }
        final Path copy = own.resolve(COPY_PREFIX + partner);
        if (restored == Cut.LOCAL)
        {
            deleteCopies(own, log);
        }
        else
        {
            GenerationFiles.dropAfter(copy, restored, w -> log.accept("checkpoint: " + w));
        }
        final Thread server = problems.get(partner) == null ? null : serve(transport, partner, copy, restored);
        // Kept from the start: the partner may commit and send its next generation while this rank still fetches.
        final BuddyKeeper keeper = BuddyKeeper.start(transport, partner, copy);
        final BuddyShipper shipper = new BuddyShipper(transport, buddy, own, log);
        String restoredFrom = null;
        final long fetchStart = System.nanoTime();
        try
        {
            if (problem != null)
            {
                restoredFrom = fetch(transport, buddy, own, restored, problem);
                log.accept("checkpoint: " + restoredFrom);
            }
        }
        catch (final IOException | RuntimeException e)
        {
            shipper.close();
            keeper.close();
            throw e;
        }
        finally
        {
            join(server);
        }
        final double fetchSeconds = problem == null ? 0 : (System.nanoTime() - fetchStart) / 1e9;
        if (restored != Cut.LOCAL && problems.get(buddy) != null)
        {
            protectAgain(shipper, own, restored, buddy, log);
        }
        return new BuddyCheckpoints(shipper, keeper, restoredFrom, fetchSeconds);
    }

    /** Sends the buddy, which lost its copy with its disk, this rank's generation of the cut resumed from. */
    private static void protectAgain(final BuddyShipper shipper, final Path own, final long restored, final int buddy,
        final Consumer<String> log) throws IOException
    {
        final long gen = GenerationFiles.ofGlobalCut(own, restored);
        shipper.copy(gen, restored, () -> log.accept("checkpoint: buddy rank " + buddy + " lost its copy of this " +
            "rank's checkpoint; generation " + gen + " (global cut " + restored + ") is durable there again"),
            why -> log.accept("checkpoint: WARNING: buddy rank " + buddy + " lost its copy of this rank's " +
                "checkpoint, and sending it again failed (" + why + "); the next global checkpoint protects it"));
    }

    /** Copies the generation of {@code cut}, committed in this rank's directory, to its buddy. */
    @Override
    public void copy(final Cut cut, final Runnable durable, final Consumer<String> failed)
    {
        shipper.copy(cut, durable, failed);
    }

    /** @return how this rank's checkpoint came back from its buddy, or null when its own directory had it. */
    public String restoredFrom()
    {
        return restoredFrom;
    }

    @Override
    public double fetchSeconds()
    {
        return fetchSeconds;
    }

    @Override
    public String state()
    {
        return shipper.state();
    }

    /** Stops copying and keeping. */
    @Override
    public void close()
    {
        shipper.close();
        keeper.close();
    }

    private static String describe(final BuddyPlacement placement)
    {
        final StringBuilder text = new StringBuilder(placement.kind().name().toLowerCase(Locale.ROOT));
        text.append(':');
        for (int r = 0; r < placement.ranks(); r++)
        {
            text.append(' ').append(r).append("→").append(placement.buddyOf(r));
        }
        return text.toString();
    }

    private static int partnerOf(final BuddyPlacement placement, final int rank)
    {
        for (int r = 0; r < placement.ranks(); r++)
        {
            if (r != rank && placement.buddyOf(r) == rank)
            {
                return r;
            }
        }
        throw new IllegalStateException("no rank has rank " + rank + " as its buddy: " + describe(placement));
    }

    private static byte[] gathered(final String host, final String problem)
    {
        final ByteBuffer b = ByteBuffer.allocate(BuddyWire.FIELDS_BYTES);
        BuddyWire.putString(b, host);
        b.put((byte) (problem == null ? 0 : 1));
        if (problem != null)
        {
            final byte[] text = problem.getBytes(StandardCharsets.UTF_8);
            b.put(text, 0, Math.min(text.length, b.remaining()));
        }
        final byte[] bytes = new byte[b.position()];
        b.flip().get(bytes);
        return bytes;
    }

    private static String hostName()
    {
        try
        {
            return InetAddress.getLocalHost().getHostName();
        }
        catch (final UnknownHostException e)
        {
            return "localhost";
        }
    }

    /**
     * Sends {@code partner} its copy of the global cut at {@code restored} from {@code copy}, on a thread; whatever
     * happens, the partner hears either the copy's end or why there is none.
     */
    private static Thread serve(final Transport transport, final int partner, final Path copy, final long restored)
    {
        final Thread thread = new Thread(() ->
        {
            String none = "sending its copy stopped";
            try
            {
                final String missing = GenerationFiles.incomplete(copy, restored);
                if (missing != null)
                {
                    none = "its copy: " + missing;
                    return;
                }
                final long gen = GenerationFiles.ofGlobalCut(copy, restored);
                final List<String> names = GenerationFiles.names(copy, gen);
                final OutgoingFiles out = new OutgoingFiles(transport, partner, BuddyWire.FETCH_TAG, null);
                for (final String name : names)
                {
                    out.send(gen, copy.resolve(name));
                }
                out.drain();
                BuddyWire.send(transport, partner, BuddyWire.FETCH_TAG, BuddyWire.end(gen, names));
                none = null;
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
            catch (final Throwable e)
            {
                none = "sending its copy failed: " + e;
            }
            finally
            {
                if (none != null)
                {
                    try
                    {
                        BuddyWire.send(transport, partner, BuddyWire.FETCH_TAG, BuddyWire.none(none));
                    }
                    catch (final Exception again)
                    {
                        // The partner is gone: nobody waits for the copy.
                    }
                }
            }
        }, "spillway-rank-" + transport.rank() + "-buddy-serve");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** @return how the copy came back. */
    private static String fetch(final Transport transport, final int buddy, final Path own, final long restored,
        final String problem) throws IOException
    {
        final String lost = "no surviving copy of rank " + transport.rank() + "'s checkpoint of the global cut at " +
            "index " + restored + ": its own directory: " + problem + "; its buddy rank " + buddy + ": ";
        final String fallback = "; the job cannot resume from this checkpoint: remove " + own.getParent() +
            " to run it again from the beginning";
        final long start = System.nanoTime();
        final IncomingFiles files = new IncomingFiles(own);
        final ByteBuffer message = BuddyWire.messageBuffer();
        String why;
        try
        {
            while (true)
            {
                BuddyWire.receive(transport, buddy, BuddyWire.FETCH_TAG, message, () -> false);
                final byte kind = message.get();
                if (kind == BuddyWire.NONE)
                {
                    why = BuddyWire.rest(message);
                    break;
                }
                if (kind == BuddyWire.CHUNK)
                {
                    CrashPoints.hit(CrashPoints.BUDDY_FETCH);
                    files.chunk(message);
                    continue;
                }
                final long bytes = files.bytes();
                final long gen = message.getLong();
                files.finish(gen, BuddyWire.names(message));
                return String.format(Locale.ROOT, "rank %d's own directory lacks the global cut at index %d (%s); " +
                    "fetched generation %d from its buddy rank %d: %d bytes in %.3f s", transport.rank(), restored,
                    problem, gen, buddy, bytes, (System.nanoTime() - start) / 1e9);
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            why = "interrupted while fetching";
        }
        catch (final RuntimeException | IOException e)
        {
            why = "fetching failed: " + e.getMessage();
        }
        try
        {
            files.discard();
        }
        catch (final IOException e)
        {
            why += " (and its partial files could not be removed: " + e.getMessage() + ")";
        }
        throw new IOException(lost + why + fallback);
    }

    private static void join(final Thread thread)
    {
        if (thread == null)
        {
            return;
        }
        try
        {
            thread.join();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** Deletes this rank's copies of other ranks: a job that starts from the beginning needs none of them. */
    private static void deleteCopies(final Path own, final Consumer<String> log) throws IOException
    {
        try (DirectoryStream<Path> copies = Files.newDirectoryStream(own, COPY_PREFIX + "*"))
        {
            for (final Path copy : copies)
            {
                try (Stream<Path> files = Files.walk(copy))
                {
                    for (final Path f : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator)
                    {
                        Files.delete(f);
                    }
                }
                log.accept("checkpoint: the job starts from the beginning, so " + copy + " (an earlier run's copy) " +
                    "was removed");
            }
        }
    }
}
