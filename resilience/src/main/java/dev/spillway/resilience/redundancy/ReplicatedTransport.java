package dev.spillway.resilience.redundancy;

import dev.spillway.io.CrashPoints;
import dev.spillway.ranks.DistributedSpillway;
import dev.spillway.rdma.Collectives;
import dev.spillway.rdma.Header;
import dev.spillway.rdma.Message;
import dev.spillway.rdma.PeerEvent;
import dev.spillway.rdma.PeerFailedException;
import dev.spillway.rdma.PeerListener;
import dev.spillway.rdma.Transport;
import dev.spillway.rdma.Window;
import dev.spillway.rdma.WindowHandle;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * One replica's view of a replicated job (seed 004's All-to-all mode, design §D.2): the program sees the N logical
 * ranks of a {@link SpherePlacement}; the physical transport under it connects every process slot.
 * <ul>
 * <li>A send to a logical rank goes to each of its live replicas; a replica lost meanwhile is skipped.</li>
 * <li>A receive from a logical rank takes one copy from each of its live replicas, in placement order, into the
 * same buffer in turn, and compares their header fields and CRC32C: copies that differ with no strict majority
 * among them fail the receive with {@link ReplicaMismatchException}. With two replicas this takes no extra DRAM.
 * With three or more, once a strict majority agrees on the copy in the buffer, later copies are received into a
 * scratch buffer the size of the caller's (pooled, never shrunk) and only compared, so a copy outvoted by the
 * majority is counted and dropped and the receive succeeds. Receives from one sender with one tag run one after
 * the other, so each takes the same message from every replica.</li>
 * <li>Takeover: a replica's loss is not told to listeners while its sphere has a live member; the sphere's
 * survivors run on. The loss of a sphere's last replica is told as the loss of its logical rank.</li>
 * </ul>
 * Copies with tags below {@link #FIRST_COMPARED_TAG} (the caller's own messages, such as timing figures, which
 * differ between replicas) are taken from each replica too but not compared: the last copy stays in the buffer.
 * Self-sends stay inside the process. One-sided operations (windows, puts, atomics) are not replicated and refused.
 */
public final class ReplicatedTransport implements Transport
{
    /** Tags at or above this one carry the runtime's data and protocol messages, which every replica must agree on. */
    public static final int FIRST_COMPARED_TAG = DistributedSpillway.FIRST_DATA_TAG -
        DistributedSpillway.RESERVED_TAGS;
    /**
     * The physical tag of the messages between replicas of one sphere ({@link #exchangeWithPartners}): logical
     * traffic never reaches it (data tags stay below {@code FIRST_DATA_TAG + 2^30} plus the objects declared).
     */
    public static final int PARTNER_TAG = Integer.MAX_VALUE;
    /**
     * The physical tag on which replicas of one sphere send an outvoted partner the objects to mend, apart from
     * {@link #PARTNER_TAG}'s rounds, so that neither can take the other's messages.
     */
    public static final int MEND_TAG = Integer.MAX_VALUE - 1;
    /**
     * The physical tag of the last comparison of a run ({@link ReplicaResults}), apart from {@link #PARTNER_TAG}: a
     * digest round of the last cut may still be in flight as the run ends, and must not take a result or give one.
     */
    public static final int RESULT_TAG = Integer.MAX_VALUE - 2;

    /** The physical tag on which the processes of a replicated job tell each other their hosts, once, at the start. */
    private static final int HOSTS_TAG = DistributedSpillway.FIRST_DATA_TAG - 18;
    /** The longest host name, in UTF-8 bytes, that placement takes. */
    private static final int MAX_HOST_BYTES = 1024;

    private final Transport physical;
    private final SpherePlacement placement;
    /** Live replicas: those not lost and not closed. */
    private final Spheres spheres;
    /** Replicas not lost: a replica that closed its transport at the end of its run still counts. */
    private final Spheres unfailed;
    private final int rank;
    private final String[] lostReasons;
    private final List<PeerListener> listeners = new CopyOnWriteArrayList<>();
    /** The last receive posted per (logical source, tag): the next one starts once it ended. */
    private final Map<Long, CompletableFuture<?>> receiveTails = new ConcurrentHashMap<>();
    private final PeerListener physicalListener = this::onPhysicalEvent;
    private final Consumer<ReplicaMismatchException> onMismatch;
    private final AtomicLong copiesSent = new AtomicLong();
    private final AtomicLong copiesCompared = new AtomicLong();
    private final AtomicLong takeovers = new AtomicLong();
    private final AtomicLong copiesOutvoted = new AtomicLong();
    /** Buffers for copies that are only compared, once a majority of their message's copies agreed. */
    private final Queue<ByteBuffer> scratch = new ConcurrentLinkedQueue<>();

    /**
     * @param physical   this process's transport over every slot of {@code placement}; closed with this one.
     * @param placement  which slots run each logical rank's replicas.
     * @param onMismatch told of each detection before the receive fails, on a transport thread: with two copies
     *                   nobody knows which one is right, so the job must go back to a checkpoint.
     */
    public ReplicatedTransport(final Transport physical, final SpherePlacement placement,
        final Consumer<ReplicaMismatchException> onMismatch)
    {
        this.physical = physical;
        this.onMismatch = onMismatch;
        this.placement = placement;
        this.spheres = new Spheres(placement);
        this.unfailed = new Spheres(placement);
        this.rank = spheres.rankOf(physical.rank());
        this.lostReasons = new String[placement.ranks()];
        physical.addPeerListener(physicalListener);
        for (int slot = 0; slot < physical.size(); slot++)
        {
            final String reason = physical.lostReason(slot);
            if (slot != physical.rank() && reason != null)
            {
                onPhysicalEvent(PeerEvent.lost(slot, physical.incarnation(slot), reason));
            }
        }
    }

    /**
     * Joins a replicated job: a collective over every process slot of {@code physical}, which tell each other their
     * hosts, so that every process places the spheres alike, each replica on a host its partners do not use when the
     * slots allow it ({@link SpherePlacement}).
     *
     * @param physical   this process's transport over every slot; closed with the one returned.
     * @param plan       the job's logical ranks and redundancy degree; {@code physical.size()} is its processes.
     * @param host       the name this process's host goes by: processes that give the same one share a host.
     * @param onMismatch as for the constructor.
     */
    public static ReplicatedTransport join(final Transport physical, final RedundancyPlan plan, final String host,
        final Consumer<ReplicaMismatchException> onMismatch)
    {
        final byte[] mine = host.getBytes(StandardCharsets.UTF_8);
        if (mine.length > MAX_HOST_BYTES)
        {
            throw new IllegalArgumentException("host name '" + host + "' is longer than " + MAX_HOST_BYTES + " bytes");
        }
        final List<String> hosts = new ArrayList<>(physical.size());
        for (final byte[] theirs : Collectives.allGather(physical, HOSTS_TAG, mine, MAX_HOST_BYTES))
        {
            hosts.add(new String(theirs, StandardCharsets.UTF_8));
        }
        return new ReplicatedTransport(physical, plan.place(hosts), onMismatch);
    }

    /** @return which slots run each logical rank's replicas, and on which hosts. */
    public SpherePlacement placement()
    {
        return placement;
    }

    /**
     * Sends {@code src} (its remaining bytes) to {@code slot}, a partner in this process's sphere, on the physical tag
     * {@link #PARTNER_TAG}, and waits until it went. The partner takes it with {@link #receiveFromPartner}, in the
     * same order as every other message between the two on that tag.
     */
    public void sendToPartner(final int slot, final ByteBuffer src)
    {
        sendToPartner(slot, PARTNER_TAG, src);
    }

    /** As {@link #sendToPartner(int, ByteBuffer)}, on {@code tag}: {@link #PARTNER_TAG} or {@link #MEND_TAG}. */
    public void sendToPartner(final int slot, final int tag, final ByteBuffer src)
    {
        Collectives.await(physical.send(slot, Header.of(tag), src));
    }

    /**
     * Takes the next message {@code slot} sent with {@link #sendToPartner} into {@code dst}, which must have room for
     * it whole, and waits for it.
     *
     * @return its length in bytes.
     */
    public int receiveFromPartner(final int slot, final ByteBuffer dst)
    {
        return receiveFromPartner(slot, PARTNER_TAG, dst);
    }

    /** As {@link #receiveFromPartner(int, ByteBuffer)}, on {@code tag}: {@link #PARTNER_TAG} or {@link #MEND_TAG}. */
    public int receiveFromPartner(final int slot, final int tag, final ByteBuffer dst)
    {
        return Collectives.await(physical.receive(slot, tag, dst)).length();
    }

    /** @return this process's slot (physical rank). */
    public int slot()
    {
        return physical.rank();
    }

    /**
     * Sends {@code mine} to every live replica of this process's sphere and takes theirs, on the physical tag
     * {@link #PARTNER_TAG}; a partner lost meanwhile is left out. Blocks; every partner must call it as often.
     *
     * @return each partner's bytes by slot.
     */
    public Map<Integer, byte[]> exchangeWithPartners(final byte[] mine)
    {
        return exchangeWithPartners(PARTNER_TAG, mine);
    }

    /** As {@link #exchangeWithPartners(byte[])}, on {@code tag}: {@link #PARTNER_TAG} or {@link #RESULT_TAG}. */
    public Map<Integer, byte[]> exchangeWithPartners(final int tag, final byte[] mine)
    {
        final List<Integer> partners = new ArrayList<>(spheres.live(rank));
        partners.remove(Integer.valueOf(physical.rank()));
        final Map<Integer, ByteBuffer> theirLengths = new LinkedHashMap<>();
        final Map<Integer, CompletableFuture<Message>> lengths = new LinkedHashMap<>();
        for (final int slot : partners)
        {
            theirLengths.put(slot, ByteBuffer.allocateDirect(Long.BYTES));
            lengths.put(slot, physical.receive(slot, tag, theirLengths.get(slot)));
        }
        final List<CompletableFuture<Void>> sends = new ArrayList<>();
        for (final int slot : partners)
        {
            sends.add(sendFramed(slot, tag, mine));
        }
        final Map<Integer, byte[]> theirs = new TreeMap<>();
        for (final int slot : partners)
        {
            try
            {
                theirs.put(slot, receiveFramed(slot, tag, lengths.get(slot), theirLengths.get(slot)));
            }
            catch (final PeerFailedException lost)
            {
                // the partner's loss is a takeover: compare with the others
            }
        }
        for (final CompletableFuture<Void> send : sends)
        {
            try
            {
                Collectives.await(send);
            }
            catch (final PeerFailedException lost)
            {
                // as above
            }
        }
        return theirs;
    }

    /** Sends {@code bytes}'s length, then the bytes, to {@code slot} on {@code tag}. */
    private CompletableFuture<Void> sendFramed(final int slot, final int tag, final byte[] bytes)
    {
        final ByteBuffer length = ByteBuffer.allocateDirect(Long.BYTES).putLong(0, bytes.length);
        final ByteBuffer payload = ByteBuffer.allocateDirect(Math.max(1, bytes.length)).put(0, bytes);
        payload.limit(bytes.length);
        return physical.send(slot, Header.of(tag), length).thenCompose(v ->
            physical.send(slot, Header.of(tag), payload));
    }

    /** @return the bytes {@code slot} sent with {@link #sendFramed}, once {@code length} (posted) arrived. */
    private byte[] receiveFramed(final int slot, final int tag, final CompletableFuture<Message> lengthArrived,
        final ByteBuffer length)
    {
        Collectives.await(lengthArrived);
        final int size = (int)length.getLong(0);
        final ByteBuffer in = ByteBuffer.allocateDirect(Math.max(1, size));
        in.limit(size);
        Collectives.await(physical.receive(slot, tag, in));
        final byte[] bytes = new byte[size];
        in.get(0, bytes);
        return bytes;
    }

    /**
     * This replica leaves its sphere as on differing copies of a transfer (the hook given at construction): it was
     * outvoted, its partners run on.
     */
    public void leave(final ReplicaMismatchException why)
    {
        onMismatch.accept(why);
    }

    /** @return this process's place in its sphere: 0 for the first replica placed. */
    public int replica()
    {
        return placement.slotsOf(rank).indexOf(physical.rank());
    }

    /** @return slot {@code slot}'s place in its sphere: 0 for the first replica placed. */
    public int replicaOf(final int slot)
    {
        return placement.slotsOf(spheres.rankOf(slot)).indexOf(slot);
    }

    /** @return what this replica's transfers and losses came to so far. */
    public ReplicaFigures figures()
    {
        return new ReplicaFigures(copiesSent.get(), copiesCompared.get(), copiesOutvoted.get(), takeovers.get(),
            unfailed.sdcCoverage());
    }

    private void onPhysicalEvent(final PeerEvent event)
    {
        if (event.kind() != PeerEvent.Kind.LOST)
        {
            return;
        }
        final int logical = spheres.rankOf(event.rank());
        if (!event.closed() && unfailed.lost(event.rank()) == Spheres.Loss.TAKEN_OVER)
        {
            takeovers.incrementAndGet();
        }
        switch (spheres.lost(event.rank()))
        {
            case TAKEN_OVER, ALREADY_LOST ->
            {
            }
            case SPHERE_DEAD ->
            {
                final String reason = "every replica of its sphere is lost, the last (slot " + event.rank() + "): " +
                    event.reason();
                synchronized (lostReasons)
                {
                    lostReasons[logical] = reason;
                }
                final PeerEvent dead = PeerEvent.lost(logical, event.incarnation(), reason);
                listeners.forEach(l -> l.onPeerEvent(dead));
            }
        }
    }

    @Override
    public int rank()
    {
        return rank;
    }

    @Override
    public int size()
    {
        return placement.ranks();
    }

    @Override
    public int incarnation()
    {
        return physical.incarnation();
    }

    @Override
    public int incarnation(final int logical)
    {
        return logical == rank ? physical.incarnation() : physical.incarnation(placement.slotsOf(logical).get(0));
    }

    @Override
    public CompletableFuture<Void> send(final int target, final Header header, final ByteBuffer src)
    {
        final Header stamped = header.rank() == rank ? new Header(physical.rank(), header.tag(), header.epoch(),
            header.phase(), header.seq(), header.incarnation()) : header;
        if (target == rank)
        {
            copiesSent.incrementAndGet();
            return physical.send(physical.rank(), stamped, src);
        }
        final List<Integer> replicas = spheres.live(target);
        if (replicas.isEmpty())
        {
            return CompletableFuture.failedFuture(new PeerFailedException(target, "send with tag " + header.tag(),
                lostReason(target)));
        }
        final CompletableFuture<?>[] copies = new CompletableFuture<?>[replicas.size()];
        final AtomicInteger lost = new AtomicInteger();
        for (int i = 0; i < copies.length; i++)
        {
            copiesSent.incrementAndGet();
            copies[i] = physical.send(replicas.get(i), stamped, src).handle((v, e) -> skipLost(e, lost));
        }
        return CompletableFuture.allOf(copies).thenApply(v ->
        {
            if (lost.get() == copies.length)
            {
                throw new PeerFailedException(target, "send with tag " + header.tag(), "every copy failed: " +
                    "its replicas " + replicas + " are lost");
            }
            return null;
        });
    }

    /** A copy that failed because its replica was lost is skipped (counted in {@code lost}); anything else fails. */
    private static Void skipLost(final Throwable failure, final AtomicInteger lost)
    {
        final Throwable cause = unwrap(failure);
        if (cause == null)
        {
            return null;
        }
        if (cause instanceof PeerFailedException)
        {
            lost.incrementAndGet();
            return null;
        }
        throw cause instanceof RuntimeException r ? r : new CompletionException(cause);
    }

    @Override
    public CompletableFuture<Message> receive(final int source, final int tag, final ByteBuffer dst)
    {
        if (source == ANY_SOURCE)
        {
            throw new UnsupportedOperationException("a replicated rank cannot receive from any source: each copy " +
                "must come from a named sphere");
        }
        if (source == rank)
        {
            return physical.receive(physical.rank(), tag, dst).thenApply(this::logical);
        }
        final long key = (long)source << 32 | tag & 0xFFFF_FFFFL;
        final CompletableFuture<Message> mine = new CompletableFuture<>();
        final CompletableFuture<?> before = receiveTails.put(key, mine);
        final Runnable start = () -> new CopyReceive(source, tag, dst, spheres.live(source), mine).next();
        if (before == null)
        {
            start.run();
        }
        else
        {
            before.whenComplete((m, e) -> start.run());
        }
        mine.whenComplete((m, e) -> receiveTails.remove(key, mine));
        return mine;
    }

    private Message logical(final Message m)
    {
        final Header h = m.header();
        return new Message(new Header(spheres.rankOf(h.rank()), h.tag(), h.epoch(), h.phase(), h.seq(),
            h.incarnation()), m.length());
    }

    private static Throwable unwrap(final Throwable t)
    {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    /** @return a direct buffer of at least {@code bytes} for a copy only checked, from the pool or new. */
    private ByteBuffer scratch(final int bytes)
    {
        final ByteBuffer pooled = scratch.poll();
        return (pooled != null && pooled.capacity() >= bytes ? pooled : ByteBuffer.allocateDirect(bytes)).clear()
            .limit(bytes);
    }

    /** One copy of a logical message as delivered: its slot, header and length, and its payload's CRC32C. */
    private record Copy(int slot, Message message, long checksum)
    {
        boolean agrees(final Copy other)
        {
            final Header a = message.header();
            final Header b = other.message.header();
            return checksum == other.checksum && message.length() == other.message.length() &&
                a.epoch() == b.epoch() && a.phase() == b.phase() && a.seq() == b.seq();
        }
    }

    /**
     * One logical receive: the copies of its sender's live replicas, one after the other, into one buffer. Once a
     * strict majority of the copies agrees with the one in the buffer, later copies go to a scratch buffer, only to
     * be compared, so a copy outvoted by two others never overwrites theirs.
     */
    private final class CopyReceive
    {
        private final int source;
        private final int tag;
        private final ByteBuffer dst;
        private final List<Integer> replicas;
        private final CompletableFuture<Message> result;
        private final boolean compared;
        private final List<Copy> copies = new ArrayList<>(3);
        private int next;
        /** The copy the caller's buffer holds. */
        private Copy held;
        /** The first copy that failed because a replica (or this process) was lost. */
        private PeerFailedException firstLoss;
        /** The slot that died while delivering its copy over the one in the buffer, or -1. */
        private int overwrittenBy = -1;

        CopyReceive(final int source, final int tag, final ByteBuffer dst, final List<Integer> replicas,
            final CompletableFuture<Message> result)
        {
            this.source = source;
            this.tag = tag;
            this.dst = dst;
            this.replicas = replicas;
            this.result = result;
            this.compared = tag >= FIRST_COMPARED_TAG;
        }

        void next()
        {
            if (next == replicas.size())
            {
                finish();
                return;
            }
            final int slot = replicas.get(next++);
            // The buffer's copy is kept once it agrees with a strict majority of every copy still possible.
            final ByteBuffer into = compared && 2 * agreeing(held) > copies.size() + replicas.size() - next + 1 ?
                scratch(dst.remaining()) : dst;
            physical.receive(slot, tag, into).whenComplete((m, e) ->
            {
                try
                {
                    if (e == null)
                    {
                        delivered(new Copy(slot, m, compared ? checksum(into, m) : 0), into == dst);
                        if (next < replicas.size())
                        {
                            CrashPoints.hit(CrashPoints.BETWEEN_COPIES);
                        }
                    }
                    else if (!(unwrap(e) instanceof PeerFailedException lost))
                    {
                        result.completeExceptionally(unwrap(e));
                        return;
                    }
                    else
                    {
                        firstLoss = firstLoss == null ? lost : firstLoss;
                        if (into == dst && held != null && compared && checksum(dst, held.message) != held.checksum)
                        {
                            overwrittenBy = slot;
                            held = null;
                        }
                    }
                    next();
                }
                catch (final ReplicaMismatchException mismatch)
                {
                    try
                    {
                        onMismatch.accept(mismatch);
                    }
                    finally
                    {
                        result.completeExceptionally(mismatch);
                    }
                }
                catch (final Throwable failure)
                {
                    result.completeExceptionally(failure);
                }
                finally
                {
                    // A receive that failed may still be written by the transport: its scratch buffer is dropped.
                    if (into != dst && e == null)
                    {
                        scratch.offer(into);
                    }
                }
            });
        }

        private void delivered(final Copy copy, final boolean inBuffer)
        {
            if (inBuffer)
            {
                held = copy;
            }
            if (!compared)
            {
                return;
            }
            copies.add(copy);
            if (copies.size() > 1)
            {
                copiesCompared.incrementAndGet();
            }
            // A strict majority of the copies delivered in the end needs the largest group so far to win them all.
            int largest = 0;
            for (final Copy c : copies)
            {
                largest = Math.max(largest, agreeing(c));
            }
            final int toCome = replicas.size() - next;
            if (largest < copies.size() && 2 * (largest + toCome) <= copies.size() + toCome)
            {
                throw differ();
            }
        }

        /** @return how many copies delivered so far agree with {@code copy}. */
        private int agreeing(final Copy copy)
        {
            int n = 0;
            for (int i = 0; copy != null && i < copies.size(); i++)
            {
                n += copy.agrees(copies.get(i)) ? 1 : 0;
            }
            return n;
        }

        private void finish()
        {
            if (held == null && overwrittenBy >= 0)
            {
                throw new ReplicaMismatchException("receive from rank " + source + " with tag " + tag + ": slot " +
                    overwrittenBy + " died while delivering its copy over the one already received, which no " +
                    "longer holds its checksum, and no later copy replaced it");
            }
            if (held == null)
            {
                final String dead = lostReason(source);
                result.completeExceptionally(new PeerFailedException(source, "receive with tag " + tag,
                    dead != null ? dead : "every replica's copy failed, the first with: " + firstLoss.getMessage()));
                return;
            }
            if (compared && agreeing(held) < copies.size())
            {
                if (2 * agreeing(held) <= copies.size())
                {
                    throw differ();
                }
                copiesOutvoted.addAndGet(copies.size() - agreeing(held));
            }
            result.complete(logical(held.message));
        }

        private ReplicaMismatchException differ()
        {
            return new ReplicaMismatchException("silent data corruption detected: the replicas of rank " + source +
                " sent rank " + rank + " (slot " + physical.rank() + ") different copies of the message with tag " +
                tag + ", with no strict majority: " + describe(copies));
        }

        private long checksum(final ByteBuffer payload, final Message m)
        {
            final CRC32C crc = new CRC32C();
            final ByteBuffer bytes = payload.duplicate();
            bytes.limit(payload.position() + m.length());
            crc.update(bytes);
            return crc.getValue();
        }

        private static String describe(final List<Copy> copies)
        {
            final StringBuilder out = new StringBuilder();
            for (final Copy c : copies)
            {
                out.append(out.length() == 0 ? "" : ", ").append("slot ").append(c.slot).append(": ")
                    .append(c.message.length()).append(" bytes, seq ").append(c.message.header().seq())
                    .append(", crc32c ").append(Long.toHexString(c.checksum));
            }
            return out.toString();
        }
    }

    @Override
    public Window createWindow(final String name, final int size)
    {
        throw oneSided("create window " + name);
    }

    @Override
    public Window registerWindow(final String name, final ByteBuffer memory)
    {
        throw oneSided("register window " + name);
    }

    @Override
    public void put(final WindowHandle target, final long offset, final ByteBuffer src)
    {
        throw oneSided("put");
    }

    @Override
    public void get(final WindowHandle target, final long offset, final ByteBuffer dst)
    {
        throw oneSided("get");
    }

    @Override
    public CompletableFuture<Void> flush(final int target)
    {
        throw oneSided("flush");
    }

    @Override
    public CompletableFuture<Void> flushAll()
    {
        throw oneSided("flush");
    }

    @Override
    public CompletableFuture<Long> fetchAndAdd(final WindowHandle target, final long offset, final long delta)
    {
        throw oneSided("fetch-and-add");
    }

    @Override
    public CompletableFuture<Long> compareAndSwap(final WindowHandle target, final long offset, final long expected,
        final long update)
    {
        throw oneSided("compare-and-swap");
    }

    private static UnsupportedOperationException oneSided(final String operation)
    {
        return new UnsupportedOperationException(operation + ": one-sided operations are not replicated (design " +
            "§D.2); buddy checkpoints and the rdma bench cannot run with --redundancy");
    }

    @Override
    public String lostReason(final int logical)
    {
        synchronized (lostReasons)
        {
            return lostReasons[logical];
        }
    }

    @Override
    public String selfLostReason()
    {
        return physical.selfLostReason();
    }

    @Override
    public void addPeerListener(final PeerListener listener)
    {
        listeners.add(listener);
    }

    @Override
    public void removePeerListener(final PeerListener listener)
    {
        listeners.remove(listener);
    }

    @Override
    public long fencedMessages()
    {
        return physical.fencedMessages();
    }

    @Override
    public void close()
    {
        physical.removePeerListener(physicalListener);
        physical.close();
    }
}
