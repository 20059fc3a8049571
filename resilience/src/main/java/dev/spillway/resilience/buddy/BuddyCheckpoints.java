package dev.spillway.resilience.buddy;

import dev.spillway.checkpoint.Cut;
import dev.spillway.io.CrashPoints;
import dev.spillway.io.DirectIo;
import dev.spillway.rdma.Collectives;
import dev.spillway.rdma.Header;
import dev.spillway.rdma.Message;
import dev.spillway.rdma.Transport;
import dev.spillway.rdma.Window;
import dev.spillway.rdma.WindowHandle;
import dev.spillway.ranks.CommitCopy;
import dev.spillway.resilience.Checkpoints;
import dev.spillway.resilience.store.GenerationFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Buddy checkpoints in {@code staged} mode (design part B.2): every generation a rank commits in
 * {@code DIR/rank-R/} is copied to its buddy, which keeps it on its own disk in {@code DIR/rank-B/buddy-of-R/}, and
 * a global checkpoint counts only once every rank's copy is durable at its buddy. A rank whose directory lost the
 * global checkpoint the job restarts from (its node and disk were lost), or holds it with a block that fails its
 * checksum, fetches the copy back from its buddy before its store opens, and verifies every block of it. When that
 * cut survives for some rank neither in its directory nor at its buddy, or a fetched copy fails verification, the
 * job resumes from the newest older global cut that every rank holds and none rejected ({@link #restored()}). Files
 * travel in 1 MiB chunks, each with a CRC32C, as two-sided messages or put one-sided into a ring window the buddy
 * created ({@link Stream}); a copy is fetched back as messages.
 *
 * <pre>{@code
 * long restored = GlobalCheckpoints.agreeOnRestore(transport, root);
 * BuddyCheckpoints buddies = BuddyCheckpoints.start(transport, root, restored, Stream.MESSAGES, System.err::println);
 * // open the store and the policy at buddies.restored()
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

    /** How a rank's chunks travel to its buddy. */
    public enum Stream
    {
        /**
         * Two-sided tagged messages, 4 in flight, into 4 receives the buddy posted. With UCX over TCP (peer error
         * handling on, as ranks run) the faster: there a put is emulated by the target's progress thread.
         */
        MESSAGES,
        /**
         * One-sided puts into a ring window of 4 slots the buddy created, each announced by a small message once
         * flushed and given back by the buddy once written: truly one-sided where the transport is (shared memory,
         * RDMA).
         */
        PUTS
    }

    private static final String COPY_PREFIX = CutsHeld.COPY_PREFIX;

    private final BuddyShipper shipper;
    private final BuddyKeeper keeper;
    private final long restored;
    private final String restoredFrom;
    private final double fetchSeconds;

    private BuddyCheckpoints(final BuddyShipper shipper, final BuddyKeeper keeper, final long restored,
        final String restoredFrom, final double fetchSeconds)
    {
        this.shipper = shipper;
        this.keeper = keeper;
        this.restored = restored;
        this.restoredFrom = restoredFrom;
        this.fetchSeconds = fetchSeconds;
    }

    /**
     * A collective, after the ranks agreed on the global cut to restore and before any store opens: places the
     * buddies, settles the cut the job resumes from ({@link #restored()}), brings back from its buddy the copy of
     * every rank whose own directory lacks that cut or fails its checksums, and starts copying and keeping.
     *
     * @param root     the job's checkpoint directory, holding {@code rank-R/}.
     * @param restored the global cut's index, or {@link Cut#LOCAL} when the job starts from the beginning.
     * @param stream   how chunks travel to the buddy; the same on every rank.
     * @param log      told of the placement, fetches and copies, for people.
     * @throws IOException when this rank needs its copy and no surviving one exists: "no surviving copy of rank r",
     *                     naming where it looked and why each place failed.
     */
    public static BuddyCheckpoints start(final Transport transport, final Path root, final long restored,
        final Stream stream, final Consumer<String> log) throws IOException
    {
        if (transport.size() < 2)
        {
            throw new IllegalArgumentException("buddy checkpoints need at least 2 ranks, the job has " +
                transport.size());
        }
        final int me = transport.rank();
        final Path own = root.resolve("rank-" + me);
        final CutsHeld held = CutsHeld.gather(transport, own, restored, log);
        final BuddyPlacement placement = held.placement();
        final int buddy = placement.buddyOf(me);
        final int partner = partnerOf(placement, me);
        if (me == 0)
        {
            log.accept("checkpoint: buddies " + describe(placement));
            placement.warnings().forEach(w -> log.accept("checkpoint: " + w));
        }
        final Path copy = own.resolve(COPY_PREFIX + partner);
        final List<String> failures = new ArrayList<>();
        BuddyKeeper keeper = null;
        BuddyShipper shipper = null;
        String restoredFrom = null;
        final long fetchStart = System.nanoTime();
        long resumed = restored;
        try
        {
            // A round per cut tried: every rank says whether it restored it; a cut a rank rejected is not tried again.
            for (int round = 0; ; round++)
            {
                final long found = restored == Cut.LOCAL ? Cut.LOCAL : held.newest();
                if (found == CutsHeld.NONE && round > 0)
                {
                    if (!failures.isEmpty())
                    {
                        throw new IOException(String.join("; then ", failures) + "; the job cannot resume: " +
                            "remove " + root + " to run it again from the beginning");
                    }
                    break;
                }
                if (me == 0 && found != CutsHeld.NONE && found != resumed)
                {
                    log.accept("checkpoint: the global cut at index " + resumed + (held.rejecting().isEmpty() ?
                        " survives neither in its own directory nor at its buddy for rank(s) " + held.lacking(resumed) :
                        " failed verification on rank(s) " + held.rejecting()) + "; every rank holds the older " +
                        "global cut at index " + found + ": the job resumes from it");
                }
                resumed = found == CutsHeld.NONE ? restored : found;
                final String problem = resumed == Cut.LOCAL ? null : held.ownProblem(resumed);
                Files.createDirectories(own);
                if (resumed == Cut.LOCAL)
                {
                    deleteCopies(own, log);
                }
                else
                {
                    GenerationFiles.dropAfter(copy, resumed, w -> log.accept("checkpoint: " + w));
                }
                if (keeper == null)
                {
                    keeper = BuddyKeeper.start(transport, partner, copy, stream);
                    shipper = new BuddyShipper(transport, buddy, exchangeStreams(transport, stream, keeper.ring(),
                        partner, buddy), own, log);
                }
                final Thread server = resumed == Cut.LOCAL || held.owns(partner, resumed) ? null :
                    serve(transport, partner, copy, resumed);
                restoredFrom = null;
                String failure = null;
                try
                {
                    if (problem != null)
                    {
                        restoredFrom = fetch(transport, buddy, own, resumed, problem);
                        failure = verify(own, resumed, lost(me, resumed, problem, buddy));
                    }
                }
                catch (final IOException e)
                {
                    failure = e.getMessage();
                }
                finally
                {
                    join(server);
                }
                if (failure != null)
                {
                    failures.add(failure);
                }
                final byte[][] verdicts = Collectives.allGather(transport, BuddyWire.VERIFY_TAG,
                    new byte[] {(byte)(failure == null ? 0 : 1)}, 1);
                boolean everyRankRestored = true;
                for (int r = 0; r < verdicts.length; r++)
                {
                    if (verdicts[r][0] != 0)
                    {
                        held.reject(r, resumed);
                        everyRankRestored = false;
                    }
                }
                if (everyRankRestored)
                {
                    if (restoredFrom != null)
                    {
                        log.accept("checkpoint: " + restoredFrom);
                    }
                    break;
                }
            }
        }
        catch (final IOException | RuntimeException e)
        {
            if (shipper != null)
            {
                shipper.close();
            }
            if (keeper != null)
            {
                keeper.close();
            }
            throw e;
        }
        keeper.keepFrom(resumed);
        final double fetchSeconds = restoredFrom == null ? 0 : (System.nanoTime() - fetchStart) / 1e9;
        if (resumed != Cut.LOCAL && !held.buddyHolds(me, resumed))
        {
            protectAgain(shipper, own, resumed, buddy, log);
        }
        return new BuddyCheckpoints(shipper, keeper, resumed, restoredFrom, fetchSeconds);
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

    /** Keeps every copy of the partner's from the cut at {@code globalIndex} on, besides the {@link #KEPT} newest. */
    @Override
    public void globallyCommitted(final long globalIndex)
    {
        keeper.keepFrom(globalIndex);
    }

    /**
     * @return the global cut the job resumes from: the one agreed, or the newest older one that every rank holds in
     *         its own directory or at its buddy when the agreed one survives on neither for some rank;
     *         {@link Cut#LOCAL} for the beginning.
     */
    public long restored()
    {
        return restored;
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

    /**
     * @return DRAM a rank holds for its copies while it runs, outside the engine, which the run charges to its
     *         budget: the aligned staging buffer at each end, the buddy's answer and the keeper's word that it
     *         stopped ({@link KeeperWatch}); with {@link Stream#MESSAGES} the messages in flight to the buddy and the
     *         receives posted for the partner, each a chunk and its fields; with {@link Stream#PUTS} the ring the
     *         partner puts into and the buffers put from, each a slot, and the notices and credits.
     */
    public static long dramBytes(final Stream stream)
    {
        final long both = 2L * (BuddyWire.CHUNK_BYTES + DirectIo.ALIGNMENT) + 2L * BuddyWire.FIELDS_BYTES + 8;
        return both + switch (stream)
        {
            case MESSAGES -> (long)(MessageOutlet.IN_FLIGHT + BuddyKeeper.POSTED) *
                (BuddyWire.CHUNK_BYTES + BuddyWire.FIELDS_BYTES);
            case PUTS -> (long)(BuddyWire.SLOTS + RingOutlet.BUFFERS) * BuddyWire.SLOT_BYTES +
                (3L * BuddyWire.SLOTS + BuddyKeeper.POSTED) * BuddyWire.NOTICE_BYTES;
        };
    }

    /**
     * Tells the partner how this rank keeps its copy, with its ring's handle under {@link Stream#PUTS}, and hears the
     * same from the buddy.
     *
     * @return the buddy's ring, or null under {@link Stream#MESSAGES}.
     * @throws IllegalStateException when the buddy copies the other way.
     */
    private static WindowHandle exchangeStreams(final Transport transport, final Stream stream, final Window ring,
        final int partner, final int buddy)
    {
        final ByteBuffer theirs = ByteBuffer.allocateDirect(BuddyWire.FIELDS_BYTES);
        final CompletableFuture<Message> received = transport.receive(buddy, BuddyWire.RING_TAG, theirs);
        final byte[] handle = ring == null ? new byte[0] : ring.handle().toBytes();
        Collectives.await(transport.send(partner, Header.of(BuddyWire.RING_TAG),
            ByteBuffer.allocateDirect(1 + handle.length).put((byte) stream.ordinal()).put(handle).flip()));
        final int length = Collectives.await(received).length();
        final int theirStream = length == 0 ? -1 : theirs.get(0);
        if (theirStream != stream.ordinal())
        {
            throw new IllegalStateException("buddy rank " + buddy + " copies with --buddy-stream " +
                (theirStream >= 0 && theirStream < Stream.values().length ?
                    Stream.values()[theirStream].name().toLowerCase(Locale.ROOT) : "(unknown: " + theirStream + ")") +
                ", rank " + transport.rank() + " with " + stream.name().toLowerCase(Locale.ROOT) + ": start every " +
                "rank with the same");
        }
        if (ring == null)
        {
            return null;
        }
        final byte[] bytes = new byte[length - 1];
        theirs.get(1, bytes);
        return WindowHandle.fromBytes(bytes);
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

    /**
     * Reads a fetched copy whole, checking every block as a restore does, unless checksums are off (the test-only
     * negative control).
     *
     * @return null when it verifies, else why not, after {@code lost}.
     */
    private static String verify(final Path own, final long cut, final String lost) throws IOException
    {
        if (!Checkpoints.verifyingChecksums())
        {
            return null;
        }
        final String why = GenerationFiles.unverified(own, cut);
        return why == null ? null : lost + "its copy, fetched, failed verification: " + why;
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
                final OutgoingFiles out = new OutgoingFiles(new MessageOutlet(transport, partner, BuddyWire.FETCH_TAG,
                    KeeperWatch.NONE), null);
                for (final String name : names)
                {
                    out.send(gen, copy.resolve(name));
                }
                out.end(gen, names);
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
        final String lost = lost(transport.rank(), restored, problem, buddy);
        final long start = System.nanoTime();
        final IncomingFiles files = new IncomingFiles(own);
        final ByteBuffer message = BuddyWire.messageBuffer();
        String why;
        try
        {
            while (true)
            {
                BuddyWire.receive(transport, buddy, BuddyWire.FETCH_TAG, message, () -> false, KeeperWatch.NONE);
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
                return String.format(Locale.ROOT, "rank %d's own directory cannot restore the global cut at index %d " +
                    "(%s); fetched generation %d from its buddy rank %d: %d bytes in %.3f s", transport.rank(),
                    restored, problem, gen, buddy, bytes, (System.nanoTime() - start) / 1e9);
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
        throw new IOException(lost + why);
    }

    /** @return the start of why rank {@code rank} has no copy of the cut at {@code cut}: what each place lacks. */
    private static String lost(final int rank, final long cut, final String problem, final int buddy)
    {
        return "no surviving copy of rank " + rank + "'s checkpoint of the global cut at index " + cut + ": its own " +
            "directory: " + problem + "; its buddy rank " + buddy + ": ";
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
                try (java.util.stream.Stream<Path> files = Files.walk(copy))
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
