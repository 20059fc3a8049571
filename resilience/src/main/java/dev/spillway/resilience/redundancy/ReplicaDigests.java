package dev.spillway.resilience.redundancy;

import dev.spillway.checkpoint.Cut;
import dev.spillway.io.CrashPoints;
import dev.spillway.rdma.PeerFailedException;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

import static java.lang.System.Logger.Level.WARNING;

/**
 * SDC detection by comparing replicas at every global cut (seed 003 §4.2.1, design §D.2): once a replica committed
 * its generation of a cut, it sends the generation's 32-byte digest ({@link GenerationDigest}) to the other live
 * replicas of its sphere and takes theirs; only when they differ are the per-object states exchanged (in a second
 * round, which otherwise carries a one-byte mark), and {@link DigestVote} decides. A verified (or, alone,
 * unchecked) generation counts towards the global commit; a mismatch without a majority never does: the rank
 * stops for a restart from the newest cut every sphere verified, naming the objects. With a strict majority (three
 * replicas or more) the majority counts the cut and runs on, and each outvoted replica is mended or leaves:
 * <ul>
 * <li><b>Mended</b> when its runtime holds the tasks after each cut until the vote (blocking cuts, which
 * {@link #mayRelease} gates): the first replica of the majority sends it the differing objects, read from its own
 * generation and checked against the majority's checksums, and its runtime replaces them in its generation and in its
 * live objects before any task runs past the cut. Nothing rolls back, and the replica stays in its sphere.</li>
 * <li><b>Leaves</b> its sphere otherwise, as on differing copies of a transfer (a takeover, with no rollback): its
 * tasks have run past the cut, so the differing objects may already have spread into later ones. It leaves too when
 * no replica of the majority sends it objects that match the majority's checksums (lost, or unable to read them), or
 * when its runtime cannot mend them.</li>
 * </ul>
 * Every replica of a sphere must be made alike: all mend or none does.
 *
 * <p>Set with {@link dev.spillway.ranks.GlobalCheckpoints#copyCommitsTo}: the global commit of a cut waits for its
 * verification, so the store must keep three generations.
 */
public final class ReplicaDigests implements CommitCopy
{
    private static final System.Logger LOG = System.getLogger(ReplicaDigests.class.getName());
    /** A partner's answer in the second round when it saw every digest equal: one byte, never an encoding. */
    private static final byte[] AGREES = {1};

    private final ReplicatedTransport transport;
    private final Path dir;
    private final boolean mendInPlace;
    /**
     * Per global cut index voted on, the objects to mend (empty for none) until the runtime takes them; only when
     * mending in place. A cut that fails is never released: the rank stops.
     */
    private final Map<Long, Map<String, ByteBuffer>> decided = new ConcurrentHashMap<>();
    /** Per global cut index whose mends the runtime applies, what to tell once it did. */
    private final Map<Long, Runnable> afterMend = new ConcurrentHashMap<>();
    private final Map<Long, Consumer<String>> mendFailed = new ConcurrentHashMap<>();
    private final SortedMap<Long, SortedSet<String>> mended = new TreeMap<>();
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r ->
    {
        final Thread t = new Thread(r, "spillway-replica-digests");
        t.setDaemon(true);
        return t;
    });
    private final SortedMap<Long, DigestVote.Verdict> verdicts = new TreeMap<>();
    private volatile String state = "no cut compared yet";
    /** Set once a cut failed or could not be mended: later cuts are not compared, the rank stops anyway. */
    private volatile String failure;

    /**
     * @param transport   this replica's transport.
     * @param dir         the rank's checkpoint directory in this replica.
     * @param mendInPlace whether an outvoted replica is mended: only when its runtime runs blocking cuts, whose held
     *                    tasks wait for {@link #mayRelease}.
     */
    public ReplicaDigests(final ReplicatedTransport transport, final Path dir, final boolean mendInPlace)
    {
        this.transport = transport;
        this.dir = dir;
        this.mendInPlace = mendInPlace;
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
                case VERIFIED, UNCHECKED -> decide(index, durable);
                case OUTVOTED ->
                {
                    if (verdict.minority().contains(transport.slot()))
                    {
                        outvoted(index, verdict, all, durable, failed);
                        return;
                    }
                    if (mendInPlace)
                    {
                        sendMends(index, verdict, all);
                    }
                    decide(index, durable);
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

    /** The cut at {@code index} needs no mend here: the runtime may run past it, and it counts. */
    private void decide(final long index, final Runnable durable)
    {
        if (mendInPlace)
        {
            decided.put(index, Map.of());
        }
        durable.run();
    }

    /**
     * This replica was outvoted at the cut at {@code index}: it takes the differing objects from the first replica of
     * the majority (every replica of the majority it saw sends it a message: the objects, or why not) and hands them
     * to its runtime, which mends them before it runs on; else, or if none arrive whole, it leaves.
     */
    private void outvoted(final long index, final DigestVote.Verdict verdict, final Map<Integer, GenerationDigest> all,
        final Runnable durable, final Consumer<String> failed)
    {
        if (!mendInPlace)
        {
            stop(index, verdict, all, "; outvoted, this replica leaves its sphere, whose majority runs on with no " +
                "rollback", failed);
            return;
        }
        final GenerationDigest mine = all.get(transport.slot());
        final List<String> rejected = new ArrayList<>();
        SortedMap<String, ByteBuffer> chosen = null;
        int donor = -1;
        SortedSet<String> toMend = null;
        for (final int slot : new TreeSet<>(all.keySet()))
        {
            if (verdict.minority().contains(slot))
            {
                continue;
            }
            state = "outvoted at the cut at global index " + index + ": taking the differing objects from slot " +
                slot;
            final GenerationDigest right = all.get(slot);
            final SortedSet<String> wanted = mine.differingObjects(right);
            try
            {
                final MendMessage message = nextMend(slot, index);
                final String wrong = !message.why().isEmpty() ? message.why() :
                    wrongMend(mine, right, wanted, message.blocks());
                if (wrong == null && chosen == null)
                {
                    chosen = message.blocks();
                    donor = slot;
                    toMend = wanted;
                }
                else if (wrong != null)
                {
                    rejected.add("slot " + slot + ": " + wrong);
                }
            }
            catch (final IOException | RuntimeException e)
            {
                rejected.add("slot " + slot + ": " + e);
            }
        }
        if (chosen == null)
        {
            stop(index, verdict, all, "; outvoted, and no replica of the majority sent the right objects (" +
                String.join("; ", rejected) + "): this replica leaves its sphere, whose majority runs on", failed);
            return;
        }
        final int from = donor;
        final SortedSet<String> objects = toMend;
        state = "outvoted at the cut at global index " + index + ": the runtime mends " + objects;
        afterMend.put(index, () ->
        {
            synchronized (mended)
            {
                mended.put(index, objects);
            }
            LOG.log(WARNING, "spillway: rank " + transport.rank() + "'s replica in slot " + transport.slot() +
                " was outvoted at the global cut at index " + index + " (" + verdict.reason() + ") and mended " +
                objects + " from slot " + from + "; no rollback");
            durable.run();
        });
        mendFailed.put(index, why -> stop(index, verdict, all, "; outvoted, and its runtime " + why + ": this " +
            "replica leaves its sphere, whose majority runs on", failed));
        decided.put(index, chosen);
    }

    /**
     * @return the message {@code slot} sent on {@link ReplicatedTransport#MEND_TAG} for the cut at {@code index}; older
     *         ones, which an earlier vote left unread, are dropped.
     * @throws IOException when the message is cut short or for a later cut.
     */
    private MendMessage nextMend(final int slot, final long index) throws IOException
    {
        MendMessage message;
        do
        {
            message = MendMessage.decode(receive(slot, ReplicatedTransport.MEND_TAG));
        }
        while (message.index() < index);
        if (message.index() != index)
        {
            throw new IOException("slot " + slot + " sent the objects of the cut at global index " + message.index() +
                ", not " + index);
        }
        return message;
    }

    /** @return null when {@code mends} are the {@code wanted} objects just as {@code right} records them, else why. */
    private static String wrongMend(final GenerationDigest mine, final GenerationDigest right,
        final SortedSet<String> wanted, final SortedMap<String, ByteBuffer> mends)
    {
        if (!wanted.equals(mends.keySet()))
        {
            return "it sent " + mends.keySet() + " for " + wanted;
        }
        for (final String tag : wanted)
        {
            if (mine.objects().get(tag) == null || right.objects().get(tag) == null)
            {
                return "'" + tag + "' is in only one of the two generations";
            }
            if (mine.objects().get(tag).version() != right.objects().get(tag).version())
            {
                return "'" + tag + "' is at version " + right.objects().get(tag).version() + " there and " +
                    mine.objects().get(tag).version() + " here";
            }
            if (!right.holds(tag, mends.get(tag)))
            {
                return "its '" + tag + "' does not match its own checksum";
            }
        }
        return null;
    }

    /**
     * This replica is in the majority at the cut at {@code index}: it sends each outvoted one a message, the objects
     * that differ if it is the first of the majority, else none; a replica that cannot read them sends why.
     */
    private void sendMends(final long index, final DigestVote.Verdict verdict, final Map<Integer, GenerationDigest> all)
    {
        final int donor = all.keySet().stream().filter(slot -> !verdict.minority().contains(slot))
            .min(Integer::compare).orElseThrow();
        for (final Map.Entry<Integer, SortedSet<String>> e : verdict.objects().entrySet())
        {
            state = "telling outvoted slot " + e.getKey() + " at the cut at global index " + index +
                (transport.slot() == donor ? " the objects that differ" : " that slot " + donor + " sends them");
            MendMessage message;
            try
            {
                message = transport.slot() == donor ?
                    new MendMessage(index, "", GenerationFiles.blocks(dir, index, e.getValue())) :
                    new MendMessage(index, "slot " + donor + " sends them", new TreeMap<>());
            }
            catch (final IOException | RuntimeException unreadable)
            {
                LOG.log(WARNING, "spillway: slot " + transport.slot() + " cannot read " + e.getValue() + " of the " +
                    "cut at global index " + index + " from " + dir + " for outvoted slot " + e.getKey() + ": " +
                    unreadable);
                message = new MendMessage(index, "it cannot read them: " + unreadable, new TreeMap<>());
            }
            try
            {
                send(e.getKey(), ReplicatedTransport.MEND_TAG, message.encode());
            }
            catch (final PeerFailedException lost)
            {
                // the outvoted replica is gone: its sphere runs on without it
            }
            catch (final RuntimeException unsent)
            {
                // The outvoted replica leaves on its own when nothing it can use arrives; the majority runs on.
                LOG.log(WARNING, "spillway: slot " + transport.slot() + " could not tell outvoted slot " + e.getKey() +
                    " at the cut at global index " + index + ": " + unsent);
            }
        }
    }

    @Override
    public boolean mayRelease(final Cut cut)
    {
        return !mendInPlace || decided.containsKey(cut.globalIndex());
    }

    @Override
    public Map<String, ByteBuffer> mends(final Cut cut)
    {
        final Map<String, ByteBuffer> mends = decided.remove(cut.globalIndex());
        return mends == null ? Map.of() : mends;
    }

    @Override
    public void mended(final Cut cut, final String why)
    {
        final Runnable durable = afterMend.remove(cut.globalIndex());
        final Consumer<String> failed = mendFailed.remove(cut.globalIndex());
        if (why == null && durable != null)
        {
            state = "mended at the cut at global index " + cut.globalIndex();
            durable.run();
            return;
        }
        if (failed != null)
        {
            failed.accept(why);
        }
    }

    /** @return per global cut index where this replica was outvoted and mended, the objects mended. */
    public SortedMap<Long, SortedSet<String>> mended()
    {
        synchronized (mended)
        {
            return new TreeMap<>(mended);
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

    /** Sends {@code bytes} to the partner in {@code slot} on {@code tag}: their length, then themselves. */
    private void send(final int slot, final int tag, final byte[] bytes)
    {
        transport.sendToPartner(slot, tag, ByteBuffer.allocateDirect(Integer.BYTES).putInt(0, bytes.length));
        transport.sendToPartner(slot, tag, ByteBuffer.allocateDirect(Math.max(1, bytes.length)).put(bytes).flip());
    }

    /** @return what the partner in {@code slot} sent on {@code tag} with {@link #send}. */
    private byte[] receive(final int slot, final int tag)
    {
        final ByteBuffer length = ByteBuffer.allocateDirect(Integer.BYTES);
        transport.receiveFromPartner(slot, tag, length);
        final ByteBuffer in = ByteBuffer.allocateDirect(Math.max(1, length.getInt(0)));
        final byte[] bytes = new byte[transport.receiveFromPartner(slot, tag, in)];
        in.get(0, bytes);
        return bytes;
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
