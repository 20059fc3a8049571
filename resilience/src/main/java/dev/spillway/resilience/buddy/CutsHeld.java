package dev.spillway.resilience.buddy;

import dev.spillway.rdma.Collectives;
import dev.spillway.rdma.Transport;
import dev.spillway.resilience.Checkpoints;
import dev.spillway.resilience.store.GenerationFiles;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

import static java.lang.System.Logger.Level.DEBUG;

/**
 * Which global cuts every rank could restore as a job restarts with buddy copies, gathered from all ranks: the cuts
 * each holds whole in its own directory, and those each holds in its copies of other ranks, with the ranks' hosts
 * for the placement. Cuts a rank fetched but could not verify are rejected for it, and so is the newest of its own
 * when that fails verification.
 */
final class CutsHeld
{
    /** No global cut survives on every rank. */
    static final long NONE = Long.MIN_VALUE;
    static final String COPY_PREFIX = "buddy-of-";
    private static final System.Logger LOG = System.getLogger(CutsHeld.class.getName());

    private final List<String> hosts = new ArrayList<>();
    private final List<List<Long>> owned = new ArrayList<>();
    private final List<Map<Integer, List<Long>>> copied = new ArrayList<>();
    private final Map<Integer, Set<Long>> rejected = new HashMap<>();
    private final Path own;
    private BuddyPlacement placement;
    /** The newest cut of this rank's own directory, when it failed verification, and why. */
    private long unverifiedCut = NONE;
    private String unverified;

    private CutsHeld(final Path own)
    {
        this.own = own;
    }

    /**
     * A collective: every rank reports its host and the cuts at or below {@code atMost} it holds. The newest of its
     * own is read whole first, every block's checksum checked, unless checksums are off: a cut that fails, or cannot
     * be read, is not reported, so its buddy's copy, or an older cut, takes its place.
     *
     * @param log told when the newest cut fails, and how long reading it took.
     */
    static CutsHeld gather(final Transport transport, final Path own, final long atMost, final Consumer<String> log)
        throws IOException
    {
        final CutsHeld held = new CutsHeld(own);
        final List<Long> whole = GenerationFiles.completeCuts(own, atMost);
        if (!whole.isEmpty() && Checkpoints.verifyingChecksums())
        {
            final long started = System.nanoTime();
            String why;
            try
            {
                why = GenerationFiles.unverified(own, whole.get(0));
            }
            catch (final IOException e)
            {
                why = "reading it failed: " + e;
            }
            final double seconds = (System.nanoTime() - started) / 1e9;
            if (why != null)
            {
                held.unverifiedCut = whole.get(0);
                held.unverified = "its copy there failed verification: " + why;
                whole.remove(0);
                log.accept(String.format(Locale.ROOT, "checkpoint: WARNING: rank %d's own copy of the global cut " +
                    "at index %d failed verification (%.3f s): %s; its buddy's copy, or an older cut, takes its place",
                    transport.rank(), held.unverifiedCut, seconds, why));
            }
            else
            {
                LOG.log(DEBUG, () -> String.format(Locale.ROOT, "spillway: rank %d verified its own copy of the " +
                    "global cut at index %d in %.3f s", transport.rank(), whole.get(0), seconds));
            }
        }
        final ByteBuffer mine = ByteBuffer.allocate(BuddyWire.FIELDS_BYTES);
        BuddyWire.putString(mine, hostName());
        putCuts(mine, whole);
        final Map<Integer, List<Long>> copies = copiesHeld(own, atMost);
        mine.putInt(copies.size());
        copies.forEach((rank, cuts) -> putCuts(mine.putInt(rank), cuts));
        final byte[] bytes = new byte[mine.position()];
        mine.flip().get(bytes);
        for (final byte[] theirs : Collectives.allGather(transport, BuddyWire.GATHER_TAG, bytes,
            BuddyWire.FIELDS_BYTES))
        {
            final ByteBuffer b = ByteBuffer.wrap(theirs);
            held.hosts.add(BuddyWire.getString(b));
            held.owned.add(getCuts(b));
            final Map<Integer, List<Long>> theirCopies = new HashMap<>();
            for (int n = b.getInt(); n > 0; n--)
            {
                theirCopies.put(b.getInt(), getCuts(b));
            }
            held.copied.add(theirCopies);
        }
        held.placement = BuddyPlacement.forHosts(held.hosts);
        return held;
    }

    BuddyPlacement placement()
    {
        return placement;
    }

    /** @return whether {@code rank}'s own directory holds {@code cut} whole. */
    boolean owns(final int rank, final long cut)
    {
        return owned.get(rank).contains(cut);
    }

    /** @return why this rank's own directory cannot restore {@code cut}, or null when it holds it whole. */
    String ownProblem(final long cut) throws IOException
    {
        return cut == unverifiedCut ? unverified : GenerationFiles.incomplete(own, cut);
    }

    /** @return whether {@code rank}'s buddy holds a whole copy of its {@code cut}. */
    boolean buddyHolds(final int rank, final long cut)
    {
        return copied.get(placement.buddyOf(rank)).getOrDefault(rank, List.of()).contains(cut);
    }

    /** {@code rank} fetched {@code cut} and could not restore it. */
    void reject(final int rank, final long cut)
    {
        rejected.computeIfAbsent(rank, k -> new HashSet<>()).add(cut);
    }

    /** @return the ranks that rejected a cut. */
    Set<Integer> rejecting()
    {
        return new TreeSet<>(rejected.keySet());
    }

    /** @return the newest cut that every rank holds, itself or at its buddy, and none rejected; else {@link #NONE}. */
    long newest()
    {
        final TreeSet<Long> candidates = new TreeSet<>();
        owned.forEach(candidates::addAll);
        copied.forEach(copies -> copies.values().forEach(candidates::addAll));
        for (final long cut : candidates.descendingSet())
        {
            if (lacking(cut).isEmpty())
            {
                return cut;
            }
        }
        return NONE;
    }

    /** @return the ranks that hold {@code cut} neither in their own directory nor at their buddy, or rejected it. */
    List<Integer> lacking(final long cut)
    {
        final List<Integer> ranks = new ArrayList<>();
        for (int r = 0; r < owned.size(); r++)
        {
            if (rejected.getOrDefault(r, Set.of()).contains(cut) || !owns(r, cut) && !buddyHolds(r, cut))
            {
                ranks.add(r);
            }
        }
        return ranks;
    }

    /** @return per rank this directory holds a copy of, the global cuts at or below {@code atMost} held whole. */
    private static Map<Integer, List<Long>> copiesHeld(final Path own, final long atMost) throws IOException
    {
        final Map<Integer, List<Long>> held = new TreeMap<>();
        if (!Files.isDirectory(own))
        {
            return held;
        }
        try (DirectoryStream<Path> copies = Files.newDirectoryStream(own, COPY_PREFIX + "*"))
        {
            for (final Path copy : copies)
            {
                final String rank = copy.getFileName().toString().substring(COPY_PREFIX.length());
                if (rank.matches("\\d{1,9}"))
                {
                    held.put(Integer.parseInt(rank), GenerationFiles.completeCuts(copy, atMost));
                }
            }
        }
        return held;
    }

    private static void putCuts(final ByteBuffer b, final List<Long> cuts)
    {
        b.putInt(cuts.size());
        cuts.forEach(b::putLong);
    }

    private static List<Long> getCuts(final ByteBuffer b)
    {
        final List<Long> cuts = new ArrayList<>();
        for (int n = b.getInt(); n > 0; n--)
        {
            cuts.add(b.getLong());
        }
        return cuts;
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
}
