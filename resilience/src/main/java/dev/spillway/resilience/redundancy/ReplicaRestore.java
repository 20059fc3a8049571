package dev.spillway.resilience.redundancy;

import dev.spillway.checkpoint.Cut;
import dev.spillway.ranks.DistributedSpillway;
import dev.spillway.ranks.GlobalCheckpoints;
import dev.spillway.rdma.PeerFailedException;
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
     * the transport, and checks every block; the others go on at once.
     */
    private static void shareCut(final ReplicatedTransport transport, final Path dir, final long cut,
        final Map<Integer, Held> sphere, final Consumer<String> say) throws IOException
    {
        final int rank = transport.rank();
        final Path own = rankDir(dir, transport.replica(), rank);
        final List<Integer> lacking = new ArrayList<>();
        int source = -1;
        for (final Map.Entry<Integer, Held> e : sphere.entrySet())
        {
            if (!e.getValue().cuts().contains(cut))
            {
                lacking.add(e.getKey());
            }
            else if (source < 0)
            {
                source = e.getKey();
            }
        }
        if (source == transport.slot())
        {
            for (final int slot : lacking)
            {
                try
                {
                    PartnerCopy.send(transport, slot, own, cut, PartnerCopy.CHUNK);
                }
                catch (final PeerFailedException lost)
                {
                    say.accept("spillway: rank " + rank + " replica " + transport.replica() + " (slot " +
                        transport.slot() + ") could not send the global cut at index " + cut + " to slot " + slot +
                        ", which was lost meanwhile: " + lost.getMessage());
                }
            }
            return;
        }
        if (!lacking.contains(transport.slot()))
        {
            return;
        }
        if (source < 0)
        {
            final StringBuilder held = new StringBuilder();
            sphere.forEach((slot, h) -> held.append(held.length() == 0 ? "" : "; ").append("slot ").append(slot)
                .append(" holds ").append(h.cuts()));
            throw new IOException("no replica of rank " + rank + " holds the global cut at index " + cut + " whole, " +
                "which the job resumes from: " + held + "; remove " + dir + " to start the job afresh");
        }
        final long started = System.nanoTime();
        final long bytes = PartnerCopy.receive(transport, source, own, PartnerCopy.CHUNK);
        final String unverified = GenerationFiles.unverified(own, cut);
        if (unverified != null)
        {
            throw new IOException("rank " + rank + " replica " + transport.replica() + " (slot " + transport.slot() +
                ") lacks the global cut at index " + cut + ", and the copy slot " + source + " sent of it failed " +
                "verification: " + unverified + "; remove " + dir + " to start the job afresh");
        }
        say.accept("spillway: rank " + rank + " replica " + transport.replica() + " (slot " + transport.slot() +
            ") lacks the global cut at index " + cut + " (it was taken over before it): received " + bytes +
            " bytes of it from slot " + source + " in " + (System.nanoTime() - started) / 1_000_000 + " ms, every " +
            "block verified");
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
