package dev.spillway.resilience.redundancy;

import dev.spillway.checkpoint.Cut;
import dev.spillway.io.CrashPoints;
import dev.spillway.ranks.CommitCopy;
import dev.spillway.resilience.store.GenerationDigest;
import dev.spillway.resilience.store.GenerationFiles;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * SDC detection by comparing replicas at every global cut (seed 003 §4.2.1, design §D.2): once a replica committed
 * its generation of a cut, it sends the generation's 32-byte digest ({@link GenerationDigest}) to the other live
 * replicas of its sphere and takes theirs; only when they differ are the per-object states exchanged (in a second
 * round, which otherwise carries a one-byte mark), and {@link DigestVote} decides. A verified (or, alone,
 * unchecked) generation counts towards the global commit; a mismatch without a majority never does: the rank
 * stops for a restart from the newest cut every sphere verified, naming the objects. With a strict majority (three
 * replicas or more) the majority counts the cut and runs on, and each outvoted replica leaves its sphere as on
 * differing copies of a transfer: a takeover, with no rollback. The outvoted replica is dropped rather than
 * repaired in place: by the time the vote ends its tasks have run past the cut, so the differing objects may
 * already have spread into later ones.
 *
 * <p>Set with {@link dev.spillway.ranks.GlobalCheckpoints#copyCommitsTo}: the global commit of a cut waits for its
 * verification, so the store must keep three generations.
 */
public final class ReplicaDigests implements CommitCopy
{
    /** A partner's answer in the second round when it saw every digest equal: one byte, never an encoding. */
    private static final byte[] AGREES = {1};

    private final ReplicatedTransport transport;
    private final Path dir;
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r ->
    {
        final Thread t = new Thread(r, "spillway-replica-digests");
        t.setDaemon(true);
        return t;
    });
    private final SortedMap<Long, DigestVote.Verdict> verdicts = new TreeMap<>();
    private volatile String state = "no cut compared yet";
    /** Set on the thread once a cut failed: later cuts are not compared, the rank stops anyway. */
    private String failure;

    /**
     * @param transport this replica's transport.
     * @param dir       the rank's checkpoint directory in this replica.
     */
    public ReplicaDigests(final ReplicatedTransport transport, final Path dir)
    {
        this.transport = transport;
        this.dir = dir;
    }

    @Override
    public void copy(final Cut cut, final Runnable durable, final Consumer<String> failed)
    {
        try
        {
            thread.execute(() -> verify(cut, durable, failed));
        }
        catch (final RejectedExecutionException closed)
        {
            // The runtime closed as its last cut committed: nothing waits for that comparison any more.
            state = "closed";
        }
    }

    /** Compares the cut on this replica's thread and tells the outcome. */
    private void verify(final Cut cut, final Runnable durable, final Consumer<String> failed)
    {
        final long index = cut.globalIndex();
        if (failure != null)
        {
            failed.accept(failure);
            return;
        }
        try
        {
            state = "comparing the cut at global index " + index + " with the sphere's other replicas";
            final Map<Integer, GenerationDigest> all = compare(index);
            final DigestVote.Verdict verdict = DigestVote.decide(transport.rank(), all);
            synchronized (verdicts)
            {
                verdicts.put(index, verdict);
            }
            state = "the cut at global index " + index + ": " + verdict.kind();
            switch (verdict.kind())
            {
                case VERIFIED, UNCHECKED -> durable.run();
                case OUTVOTED ->
                {
                    if (verdict.minority().contains(transport.slot()))
                    {
                        stop(index, verdict, all, "; outvoted, this replica leaves its sphere, whose majority runs " +
                            "on with no rollback", failed);
                        return;
                    }
                    durable.run();
                }
                case ROLL_BACK -> stop(index, verdict, all, "", failed);
            }
        }
        catch (final IOException | RuntimeException e)
        {
            failure = "could not compare the cut at global index " + index + " with the other replicas: " + e;
            failed.accept(failure);
        }
    }

    /**
     * This replica stops: it is outvoted ({@link DigestVote.Kind#OUTVOTED}), so it leaves its sphere as on differing
     * copies, or its sphere has no majority, so the rank stops for a restart from the newest verified cut.
     */
    private void stop(final long index, final DigestVote.Verdict verdict, final Map<Integer, GenerationDigest> all,
        final String outcome, final Consumer<String> failed)
    {
        failure = "silent data corruption detected at the global cut at index " + index + ": " + verdict.reason() +
            "; objects that differ from this replica's (slot " + transport.slot() + "): " + differing(all) + outcome;
        if (verdict.kind() == DigestVote.Kind.OUTVOTED)
        {
            transport.leave(new ReplicaMismatchException(failure));
        }
        failed.accept(failure);
    }

    /** @return the verdicts so far by global cut index. */
    public SortedMap<Long, DigestVote.Verdict> verdicts()
    {
        synchronized (verdicts)
        {
            return new TreeMap<>(verdicts);
        }
    }

    /** @return per other slot, the objects whose state differs from this replica's. */
    private Map<Integer, SortedSet<String>> differing(final Map<Integer, GenerationDigest> all)
    {
        final GenerationDigest mine = all.get(transport.slot());
        final Map<Integer, SortedSet<String>> out = new TreeMap<>();
        all.forEach((slot, digest) ->
        {
            if (slot != transport.slot() && !mine.differingObjects(digest).isEmpty())
            {
                out.put(slot, mine.differingObjects(digest));
            }
        });
        return out;
    }

    /** @return this replica's digest of the cut and each live partner's, by slot. */
    private Map<Integer, GenerationDigest> compare(final long index) throws IOException
    {
        final GenerationDigest mine = GenerationFiles.digest(dir, index);
        final byte[] shortForm = ByteBuffer.allocate(Long.BYTES + 32).putLong(index).put(mine.sha256()).array();
        CrashPoints.hit(CrashPoints.DIGEST_EXCHANGE);
        final Map<Integer, byte[]> theirs = transport.exchangeWithPartners(shortForm);
        boolean equal = true;
        for (final Map.Entry<Integer, byte[]> e : theirs.entrySet())
        {
            final ByteBuffer b = ByteBuffer.wrap(e.getValue());
            if (b.getLong() != index)
            {
                throw new IllegalStateException("slot " + e.getKey() + " compared another cut than " + index);
            }
            equal &= mine.matches(Arrays.copyOfRange(e.getValue(), Long.BYTES, e.getValue().length));
        }
        // A second round always: a partner lost between the rounds may have reached some replicas and not others,
        // so one that saw a difference must not wait for objects from one that saw none. Each sends its objects when
        // it saw a difference, else a mark that it agrees.
        final Map<Integer, byte[]> objects = transport.exchangeWithPartners(equal ? AGREES : encode(mine));
        final Map<Integer, GenerationDigest> all = new HashMap<>();
        all.put(transport.slot(), mine);
        for (final Map.Entry<Integer, byte[]> e : objects.entrySet())
        {
            if (!Arrays.equals(e.getValue(), AGREES))
            {
                all.put(e.getKey(), decode(index, e.getValue()));
            }
            else if (theirs.containsKey(e.getKey()) && mine.matches(Arrays.copyOfRange(theirs.get(e.getKey()),
                Long.BYTES, theirs.get(e.getKey()).length)))
            {
                all.put(e.getKey(), mine);
            }
            else
            {
                throw new IllegalStateException("slot " + e.getKey() + " saw no difference at the cut at global " +
                    "index " + index + ", but its digest differs from this replica's or never arrived");
            }
        }
        return all;
    }

    private static byte[] encode(final GenerationDigest digest) throws IOException
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            out.writeInt(digest.objects().size());
            for (final Map.Entry<String, GenerationDigest.ObjectState> e : digest.objects().entrySet())
            {
                out.writeUTF(e.getKey());
                out.writeLong(e.getValue().version());
                out.writeLong(e.getValue().checksum());
            }
        }
        return bytes.toByteArray();
    }

    private static GenerationDigest decode(final long index, final byte[] bytes) throws IOException
    {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes)))
        {
            final Map<String, GenerationDigest.ObjectState> objects = new TreeMap<>();
            for (int i = in.readInt(); i > 0; i--)
            {
                objects.put(in.readUTF(), new GenerationDigest.ObjectState(in.readLong(), in.readLong()));
            }
            return GenerationDigest.of(index, objects);
        }
    }

    @Override
    public String state()
    {
        return state;
    }

    @Override
    public void close()
    {
        thread.shutdownNow();
    }
}
