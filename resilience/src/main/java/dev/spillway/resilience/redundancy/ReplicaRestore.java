package dev.spillway.resilience.redundancy;

import dev.spillway.checkpoint.Cut;
import dev.spillway.ranks.DistributedSpillway;
import dev.spillway.ranks.GlobalCheckpoints;
import dev.spillway.rdma.PeerFailedException;
import dev.spillway.rdma.TransportTimeoutException;
import dev.spillway.resilience.store.GenerationFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Where each replica of a replicated job keeps its checkpoints, and the cut a relaunched job resumes from. Replica k
 * of every rank keeps its generations in {@code DIR/replica-k/rank-R/}, and rank 0's replica k its global commit
 * record in {@code DIR/replica-k/}, so {@code DIR/replica-0/} is laid out as an unreplicated job's directory.
 *
 * <p>At a relaunch, the replicas of rank 0 take the newest of their records: a cut is recorded only once every rank's
 * live replicas committed and verified it. A replica that was taken over before that cut (killed, or stopped on
 * differing copies) lacks it: a partner that holds it sends the generation over the transport ({@link PartnerCopy}),
 * so replicas need not share a file system; the replica checks every block and resumes like the others.
 */
public final class ReplicaRestore
{
    private static final String REPLICA_DIR = "replica-";
    /** What a replica that lacks the cut tells a holder other than the first: send me your copy, or I am done. */
    private static final byte SEND = 1;
    private static final byte DONE = 0;

    private ReplicaRestore()
    {
    }

    /** @return the checkpoint root of replica {@code replica}, under the job's {@code dir}. */
    public static Path root(final Path dir, final int replica)
    {
        return dir.resolve(REPLICA_DIR + replica);
    }

    /** @return the checkpoint directory of replica {@code replica} of {@code rank}, under the job's {@code dir}. */
    public static Path rankDir(final Path dir, final int replica, final int rank)
    {
        return root(dir, replica).resolve("rank-" + rank);
    }

    /**
     * Every replica calls it after the rendezvous, before opening its store (a collective over the logical ranks and
     * an exchange within each sphere). Afterwards this replica's directory holds the agreed cut whole.
     *
     * @param dir the job's checkpoint directory ({@code run --checkpoint-dir}).
     * @param say told what a copy from a partner did.
     * @return the global cut to resume from, or {@link Cut#LOCAL} when the job has none.
     * @throws IOException naming every replica tried when none holds the cut, or when the copy fails.
     */
    public static long agree(final ReplicatedTransport transport, final Path dir, final Consumer<String> say)
        throws IOException
    {
        final int rank = transport.rank();
        final Path own = rankDir(dir, transport.replica(), rank);
        final long recorded = rank == DistributedSpillway.ROOT ?
            GlobalCheckpoints.recordedCut(root(dir, transport.replica()), transport.size()) : Cut.LOCAL;
        final List<Long> held = GenerationFiles.completeCuts(own, Long.MAX_VALUE);
        final Map<Integer, Held> sphere = new TreeMap<>();
        sphere.put(transport.slot(), new Held(recorded, held));
        transport.exchangeWithPartners(new Held(recorded, held).encode())
            .forEach((slot, bytes) -> sphere.put(slot, Held.decode(bytes)));
        final long newest = sphere.values().stream().mapToLong(Held::recorded).max().orElse(Cut.LOCAL);
        final long agreed = GlobalCheckpoints.agreeOnRestore(transport, newest);
        if (agreed != Cut.LOCAL)
        {
            shareCut(transport, dir, agreed, sphere, say);
        }
        return agreed;
    }

    /**
     * Every replica of the sphere that lacks {@code cut} takes it from the first replica (by slot) that holds it, over
     * the transport, and checks every block; when that replica is lost meanwhile or its copy fails verification, it
     * asks the next one that holds it. The others go on at once.
     */
    private static void shareCut(final ReplicatedTransport transport, final Path dir, final long cut,
        final Map<Integer, Held> sphere, final Consumer<String> say) throws IOException
    {
        final List<Integer> holders = new ArrayList<>();
        final List<Integer> lacking = new ArrayList<>();
        sphere.forEach((slot, held) -> (held.cuts().contains(cut) ? holders : lacking).add(slot));
        if (lacking.contains(transport.slot()) && holders.isEmpty())
        {
            final StringBuilder held = new StringBuilder();
            sphere.forEach((slot, h) -> held.append(held.length() == 0 ? "" : "; ").append("slot ").append(slot)
                .append(" holds ").append(h.cuts()));
            throw new IOException("no replica of rank " + transport.rank() + " holds the global cut at index " + cut +
                " whole, which the job resumes from: " + held + "; remove " + dir + " to start the job afresh");
        }
        shareCut(transport, rankDir(dir, transport.replica(), transport.rank()), dir, cut, holders, lacking, say,
            PartnerCopy.CHUNK);
    }

    /**
     * {@link #shareCut} once the sphere is split into the slots that hold the cut and those that lack it.
     *
     * @param own   this replica's checkpoint directory.
     * @param chunk the largest message of a copy ({@link PartnerCopy#CHUNK}; tests take smaller ones).
     */
    static void shareCut(final ReplicatedTransport transport, final Path own, final Path dir, final long cut,
        final List<Integer> holders, final List<Integer> lacking, final Consumer<String> say, final int chunk)
        throws IOException
    {
        final int index = holders.indexOf(transport.slot());
        if (index >= 0)
        {
            for (final int slot : lacking)
            {
                serve(transport, index == 0, slot, own, cut, say, chunk);
            }
        }
        else if (lacking.contains(transport.slot()))
        {
            fetch(transport, own, dir, cut, holders, say, chunk);
        }
    }

    /** Sends the cut to {@code slot}: the first holder unasked, every other one when {@code slot} asks it. */
    private static void serve(final ReplicatedTransport transport, final boolean first, final int slot,
        final Path own, final long cut, final Consumer<String> say, final int chunk) throws IOException
    {
        try
        {
            if (first || askedToSend(transport, slot))
            {
                PartnerCopy.send(transport, slot, own, cut, chunk);
            }
        }
        catch (final PeerFailedException lost)
        {
            say.accept("spillway: " + who(transport) + " could not send the global cut at index " + cut +
                " to slot " + slot + ", which was lost meanwhile: " + lost.getMessage());
        }
    }

    /** @return whether {@code slot} asks this holder for its copy (its earlier sources failed) or says it is done. */
    private static boolean askedToSend(final ReplicatedTransport transport, final int slot)
    {
        final ByteBuffer request = ByteBuffer.allocateDirect(1);
        while (true)
        {
            try
            {
                transport.receiveFromPartner(slot, request);
                return request.get(0) == SEND;
            }
            catch (final TransportTimeoutException stillCopying)
            {
                // It is still taking a copy from an earlier holder: a large one may outlast the operation timeout.
            }
        }
    }

    /** Takes the cut from each holder in turn until one copy arrives whole and verified. */
    private static void fetch(final ReplicatedTransport transport, final Path own, final Path dir, final long cut,
        final List<Integer> holders, final Consumer<String> say, final int chunk) throws IOException
    {
        final List<String> failed = new ArrayList<>();
        for (int i = 0; i < holders.size(); i++)
        {
            final int source = holders.get(i);
            final long started = System.nanoTime();
            try
            {
                if (i > 0)
                {
                    tell(transport, source, SEND);
                }
                final long bytes = PartnerCopy.receive(transport, source, own, chunk);
                final String unverified = GenerationFiles.unverified(own, cut);
                if (unverified == null)
                {
                    holders.subList(i + 1, holders.size()).forEach(done -> tellQuietly(transport, done, DONE));
                    say.accept("spillway: " + who(transport) + " lacks the global cut at index " + cut + " (it was " +
                        "taken over before it): received " + bytes + " bytes of it from slot " + source + " in " +
                        (System.nanoTime() - started) / 1_000_000 + " ms, every block verified" +
                        (failed.isEmpty() ? "" : " (after " + String.join("; ", failed) + ")"));
                    return;
                }
                failed.add("slot " + source + "'s copy failed verification: " + unverified);
            }
            catch (final PeerFailedException lost)
            {
                failed.add("slot " + source + " was lost: " + lost.getMessage());
            }
            say.accept("spillway: " + who(transport) + ": " + failed.get(failed.size() - 1) +
                (i + 1 < holders.size() ? "; asking slot " + holders.get(i + 1) : ""));
        }
        throw new IOException(who(transport) + " lacks the global cut at index " + cut + ", and no partner's copy " +
            "of it arrived whole: " + String.join("; ", failed) + "; remove " + dir + " to start the job afresh");
    }

    private static void tell(final ReplicatedTransport transport, final int slot, final byte what)
    {
        transport.sendToPartner(slot, ByteBuffer.allocateDirect(1).put(0, what));
    }

    private static void tellQuietly(final ReplicatedTransport transport, final int slot, final byte what)
    {
        try
        {
            tell(transport, slot, what);
        }
        catch (final PeerFailedException lost)
        {
            // It waits for nothing more from this replica.
        }
    }

    private static String who(final ReplicatedTransport transport)
    {
        return "rank " + transport.rank() + " replica " + transport.replica() + " (slot " + transport.slot() + ")";
    }

    /** A replica's record (rank 0's replicas) and the cuts its directory holds whole. */
    private record Held(long recorded, List<Long> cuts)
    {
        byte[] encode()
        {
            final ByteBuffer b = ByteBuffer.allocate(Long.BYTES * (2 + cuts.size())).putLong(recorded)
                .putLong(cuts.size());
            cuts.forEach(b::putLong);
            return b.array();
        }

        static Held decode(final byte[] bytes)
        {
            final ByteBuffer b = ByteBuffer.wrap(bytes);
            final long recorded = b.getLong();
            final List<Long> cuts = new ArrayList<>();
            for (long n = b.getLong(); n > 0; n--)
            {
                cuts.add(b.getLong());
            }
            return new Held(recorded, cuts);
        }
    }
}
