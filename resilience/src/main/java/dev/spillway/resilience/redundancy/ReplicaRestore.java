package dev.spillway.resilience.redundancy;

import dev.spillway.checkpoint.Cut;
import dev.spillway.ranks.DistributedSpillway;
import dev.spillway.ranks.GlobalCheckpoints;
import dev.spillway.resilience.store.GenerationFiles;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Where each replica of a replicated job keeps its checkpoints, and the cut a relaunched job resumes from. Replica k
 * of every rank keeps its generations in {@code DIR/replica-k/rank-R/}, and rank 0's replica k its global commit
 * record in {@code DIR/replica-k/}, so {@code DIR/replica-0/} is laid out as an unreplicated job's directory.
 *
 * <p>At a relaunch, the replicas of rank 0 take the newest of their records: a cut is recorded only once every rank's
 * live replicas committed and verified it. A replica that was taken over before that cut (killed, or stopped on
 * differing copies) lacks it: it copies the generation from a partner that holds it, checks every block, and resumes
 * like the others. The copy goes through the file system: the replicas of a job started by {@code launch} share one
 * host.
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
        if (agreed != Cut.LOCAL && !held.contains(agreed))
        {
            copyFromPartner(transport, dir, agreed, sphere, say);
        }
        return agreed;
    }

    private static void copyFromPartner(final ReplicatedTransport transport, final Path dir, final long cut,
        final Map<Integer, Held> sphere, final Consumer<String> say) throws IOException
    {
        final int rank = transport.rank();
        final Path own = rankDir(dir, transport.replica(), rank);
        final StringBuilder tried = new StringBuilder("this replica (slot " + transport.slot() + ") holds " +
            sphere.get(transport.slot()).cuts());
        for (final Map.Entry<Integer, Held> e : sphere.entrySet())
        {
            final int slot = e.getKey();
            if (slot == transport.slot())
            {
                continue;
            }
            if (!e.getValue().cuts().contains(cut))
            {
                tried.append("; slot ").append(slot).append(" holds ").append(e.getValue().cuts());
                continue;
            }
            final Path from = rankDir(dir, transport.replicaOf(slot), rank);
            final long started = System.nanoTime();
            final long bytes = copy(from, own, cut);
            final String unverified = GenerationFiles.unverified(own, cut);
            if (unverified == null)
            {
                say.accept("spillway: rank " + rank + " replica " + transport.replica() + " (slot " +
                    transport.slot() + ") lacks the global cut at index " + cut + " (it was taken over before it): " +
                    "copied " + bytes + " bytes of it from slot " + slot + "'s " + from + " in " +
                    (System.nanoTime() - started) / 1_000_000 + " ms, every block verified");
                return;
            }
            tried.append("; slot ").append(slot).append("'s copy failed verification: ").append(unverified);
        }
        throw new IOException("no replica of rank " + rank + " holds the global cut at index " + cut + " whole, " +
            "which the job resumes from: " + tried + "; remove " + dir + " to start the job afresh");
    }

    /**
     * Replaces {@code to}'s generations by {@code from}'s generation of {@code cut}: the blocks files it needs, then
     * its manifest, each synced. Nothing in {@code to} is newer than that cut.
     *
     * @return the bytes copied.
     */
    private static long copy(final Path from, final Path to, final long cut) throws IOException
    {
        final long generation = GenerationFiles.ofGlobalCut(from, cut);
        final List<String> names = GenerationFiles.names(from, generation);
        if (Files.isDirectory(to))
        {
            try (Stream<Path> old = Files.list(to))
            {
                for (final Path p : old.toList())
                {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(to);
        long bytes = 0;
        for (final String name : names)
        {
            final Path tmp = to.resolve(name + ".copy");
            Files.copy(from.resolve(name), tmp, StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE))
            {
                channel.force(true);
            }
            Files.move(tmp, to.resolve(name), StandardCopyOption.ATOMIC_MOVE);
            bytes += Files.size(to.resolve(name));
        }
        GenerationFiles.syncDirectory(to);
        return bytes;
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
