package dev.spillway.resilience.p2f;

import dev.spillway.ranks.DistributedSpillway;
import dev.spillway.ranks.RankProtocol;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Past-to-future logging run by the engine: the {@link RankProtocol} of one rank, a {@link PastToFuture} driven by
 * {@link dev.spillway.ranks.DistributedSpillway}'s transfers under an aligned {@link EpochPlan}.
 * <ul>
 *   <li>Sends and receives are stamped when submitted, in program order, so each lies in the epoch of its place in
 *       the program, whenever it runs; so are cuts.</li>
 *   <li>With aligned cuts a transfer's reception epoch is known at its send ({@code Er = Es + 2(c_target -
 *       c_source)}), so one to a higher cluster is captured there ({@link #capturesAtSend}); its ack must agree, or
 *       the protocol fails loudly.</li>
 *   <li>Receptions are taken in channel order: one that lands ahead of an earlier one of its channel waits for it,
 *       and the acks of both go out together.</li>
 *   <li>A generation commits only once every send before its cut is acknowledged (erratum #5); it keeps the
 *       protocol section ({@link SectionCodec}), and a run resumed from it resumes the protocol there.</li>
 *   <li>A global commit of the cut at index {@code G} makes the job's smallest newest-committed epoch that of
 *       cluster 0 at {@code G}; log entries received before it are dropped.</li>
 * </ul>
 * Thread-safe: every call holds this object's lock.
 */
public final class P2fProtocol implements RankProtocol
{
    private final int rank;
    private final EpochPlan plan;
    private final P2fOptions options;
    private PastToFuture<LoggedTransfer> p2f;
    /** Per source: the next ssn a receive is submitted for, and the epochs of receives not yet taken by ssn. */
    private final long[] nextReceive;
    private final List<TreeMap<Long, Integer>> receiveEpochs = new ArrayList<>();
    /** Per source: receptions landed ahead of an earlier one, by ssn. */
    private final List<TreeMap<Long, Stamp>> early = new ArrayList<>();
    private final Map<Long, EpochCut> cuts = new HashMap<>();
    /** Per cut: how many receives from each source were submitted before it. */
    private final Map<Long, long[]> receivesBefore = new HashMap<>();
    private final Map<Long, Boolean> gated = new HashMap<>();
    private long sent;
    private long received;
    private long logged;
    private long loggedBytes;
    private long dependencies;
    private long gatedCommits;
    private long replayedFromLogs;
    private long replayedFromNonAck;
    private long suppressedSends;
    private long reexecutedSends;
    private boolean resumed;
    private int restoredEpoch = -1;
    /** The epochs this rank's restorable generations open, its initial epoch (a restart from the start) included. */
    private final TreeSet<Integer> committedEpochs = new TreeSet<>();
    /** Per target: sends posted that await their ack. */
    private final List<TreeSet<Long>> done = new ArrayList<>();
    /** Per target: the transfers sent again since it last greeted this rank. */
    private final List<TreeSet<Long>> resent = new ArrayList<>();
    /** Per peer that greeted this rank: the transfers from this rank it holds, and their reception epochs. */
    private final long[] heldByPeer;
    private final List<NavigableMap<Long, Integer>> peerEpochs = new ArrayList<>();
    /**
     * Per peer that greeted this rank: the transfers it holds past {@link #heldByPeer}, landed ahead of an earlier one
     * that it still waits for. It acknowledges them once that one came; they are never sent again.
     */
    private final List<TreeSet<Long>> heldAheadByPeer = new ArrayList<>();
    /**
     * Payloads captured at their send, by log tag, with the epoch they were received in once acknowledged: what this
     * rank sends again to a rank that rolled back, until the global watermark drops them.
     */
    private final ReplayCopies copies;
    private final SentRecord sentRecord;
    private DistributedSpillway.Recorder recorder;

    /**
     * @param rank    this rank.
     * @param ranks   the job's ranks.
     * @param plan    its clusters; cuts are the aligned ones the checkpoints take.
     * @param options how the protocol runs.
     * @param copies  where it keeps what it may send again; closed with it.
     */
    public P2fProtocol(final int rank, final int ranks, final EpochPlan plan, final P2fOptions options,
        final ReplayCopies copies)
    {
        this(rank, ranks, plan, options, copies, SentRecord.none(ranks));
    }

    /**
     * As the other constructor, counting re-executed sends.
     *
     * @param sentRecord what this rank's earlier incarnations sent, and where this one records its sends; closed
     *                   with it.
     */
    public P2fProtocol(final int rank, final int ranks, final EpochPlan plan, final P2fOptions options,
        final ReplayCopies copies, final SentRecord sentRecord)
    {
        this.copies = copies;
        this.sentRecord = sentRecord;
        this.rank = rank;
        this.plan = plan;
        this.options = options;
        this.p2f = new PastToFuture<>(rank, ranks, plan.initialEpoch(rank), options);
        committedEpochs.add(plan.initialEpoch(rank));
        this.nextReceive = new long[ranks];
        this.heldByPeer = new long[ranks];
        Arrays.fill(heldByPeer, -1);
        for (int r = 0; r < ranks; r++)
        {
            receiveEpochs.add(new TreeMap<>());
            early.add(new TreeMap<>());
            done.add(new TreeSet<>());
            resent.add(new TreeSet<>());
            peerEpochs.add(new TreeMap<>());
            heldAheadByPeer.add(new TreeSet<>());
        }
    }

    @Override
    public synchronized Stamp sending(final int target, final String tag, final int version, final int bytes)
    {
        final dev.spillway.resilience.p2f.Stamp stamp = p2f.send(target, new LoggedTransfer(tag, version, bytes,
            capturesAtSend(target) ? RankProtocol.logTag(tag, version, target) : null));
        sent++;
        reexecutedSends += sentRecord.stamped(target, stamp.ssn()) ? 1 : 0;
        if (stamp.suppressed())
        {
            acked(target, new Ack(stamp.ssn(), receptionEpoch(target, stamp.ssn())));
        }
        return new Stamp(stamp.ssn(), stamp.epoch(), stamp.phase());
    }

    @Override
    public boolean capturesAtSend(final int target)
    {
        return options.logAll() || plan.cluster(rank) < plan.cluster(target);
    }

    @Override
    public synchronized long receiving(final int source)
    {
        final long ssn = nextReceive[source]++;
        receiveEpochs.get(source).put(ssn, p2f.epoch());
        return ssn;
    }

    @Override
    public synchronized void cut(final long globalIndex)
    {
        cuts.put(globalIndex, p2f.cut());
        receivesBefore.put(globalIndex, nextReceive.clone());
    }

    @Override
    public synchronized List<Ack> received(final int source, final Stamp stamp)
    {
        final TreeMap<Long, Stamp> waiting = early.get(source);
        waiting.put(stamp.ssn(), stamp);
        final List<Ack> acks = new ArrayList<>();
        for (Map.Entry<Long, Stamp> next = waiting.firstEntry();
             next != null && next.getKey() == p2f.lastAccepted(source) + 1; next = waiting.firstEntry())
        {
            waiting.pollFirstEntry();
            final Stamp s = next.getValue();
            final Integer epoch = receiveEpochs.get(source).remove(s.ssn());
            if (epoch == null)
            {
                throw new IllegalStateException("rank " + rank + " received transfer " + s.ssn() + " from rank " +
                    source + ", for which it submitted no receive");
            }
            final Reception r = p2f.receive(source, new dev.spillway.resilience.p2f.Stamp(rank, s.ssn(), s.epoch(),
                s.phase(), false), epoch);
            if (r.deliver())
            {
                p2f.consumed(r.phase());
                received++;
            }
            if (r.ackEpoch() != Reception.NO_ACK)
            {
                acks.add(new Ack(s.ssn(), r.ackEpoch()));
            }
        }
        return acks;
    }

    @Override
    public synchronized void acked(final int target, final Ack ack)
    {
        final LoggedTransfer payload = p2f.awaiting(target, ack.ssn());
        done.get(target).remove(ack.ssn());
        final PastToFuture.Acked outcome = p2f.acked(target, ack.ssn(), ack.epoch());
        if (payload != null && (outcome == PastToFuture.Acked.LOGGED) != (payload.logTag() != null) &&
            !options.logAll())
        {
            throw new IllegalStateException("rank " + rank + ": transfer " + ack.ssn() + " to rank " + target + " ('" +
                payload.tag() + "' v" + payload.version() + ") was received in epoch " + ack.epoch() + ", so it is " +
                (outcome == PastToFuture.Acked.LOGGED ? "" : "not ") + "logged, but the aligned cuts said otherwise " +
                "at its send: the ranks did not cut at the same global indices");
        }
        if (payload != null && payload.logTag() != null)
        {
            copies.receivedIn(payload.logTag(), ack.epoch());
        }
        if (outcome == PastToFuture.Acked.LOGGED || options.logAll() && outcome == PastToFuture.Acked.DEPENDENCY)
        {
            logged++;
            loggedBytes += payload == null ? 0 : payload.bytes();
        }
        if (outcome == PastToFuture.Acked.DEPENDENCY)
        {
            dependencies++;
        }
    }

    @Override
    public synchronized boolean mayCommit(final long globalIndex)
    {
        final EpochCut cut = cuts.get(globalIndex);
        final boolean may = cut == null || p2f.mayCommit(cut);
        if (!may && gated.putIfAbsent(globalIndex, Boolean.TRUE) == null)
        {
            gatedCommits++;
        }
        return may;
    }

    @Override
    public synchronized String commitWait(final long globalIndex)
    {
        final EpochCut cut = cuts.get(globalIndex);
        return cut == null ? "nothing" : "acks of " + p2f.awaitingAcksBefore(cut) + " transfer(s) sent before the " +
            "cut opening epoch " + cut.epoch() + " (erratum #5: its logs must be complete)";
    }

    @Override
    public synchronized byte[] section(final long globalIndex)
    {
        final EpochCut cut = cuts.remove(globalIndex);
        final long[] before = receivesBefore.remove(globalIndex);
        gated.remove(globalIndex);
        return cut == null ? null : SectionCodec.encode(p2f.committed(cut, Integer.MIN_VALUE, before));
    }

    @Override
    public synchronized void restored(final byte[] section)
    {
        final ProtocolSection<LoggedTransfer> state = SectionCodec.decode(section);
        if (state.rank() != rank || state.ranks() != nextReceive.length)
        {
            throw new IllegalArgumentException("the checkpoint's protocol section is rank " + state.rank() + " of " +
                state.ranks() + ", this is rank " + rank + " of " + nextReceive.length);
        }
        p2f = PastToFuture.restore(state, options);
        resumed = true;
        restoredEpoch = p2f.epoch();
        committedEpochs.add(p2f.epoch());
        for (int r = 0; r < nextReceive.length; r++)
        {
            nextReceive[r] = state.lastAccepted(r) + 1;
        }
    }

    @Override
    public synchronized void globallyCommitted(final long globalIndex)
    {
        final int gc = plan.epoch(0, globalIndex, 0);
        p2f.collect(gc);
        committedEpochs.headSet(plan.epochAfterCut(rank, globalIndex), false)
            .removeIf(e -> e != plan.initialEpoch(rank));
        copies.collect(gc);
    }

    @Override
    public void captured(final String logTag, final ByteBuffer payload)
    {
        copies.put(logTag, payload);
    }

    @Override
    public ByteBuffer payload(final String logTag)
    {
        return copies.get(logTag);
    }

    @Override
    public void close()
    {
        try
        {
            synchronized (this)
            {
                sentRecord.close();
            }
            copies.close();
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot close the copies to send again or the record of sends: " +
                e.getMessage(), e);
        }
    }

    /**
     * This rank's dependencies, those of the non-logged transfers it posted and that await their ack included (at
     * the epoch the aligned cuts say their receiver takes them in), and its committed floors.
     */
    @Override
    public synchronized byte[] recoveryReport(final long session)
    {
        if (recorder != null)
        {
            recorder.reported(session);
        }
        final SentPerEpoch.Builder depends = SentPerEpoch.builder();
        p2f.dependencies().forEach(depends::add);
        for (int target = 0; target < done.size(); target++)
        {
            for (final long ssn : done.get(target))
            {
                final OutChannel.Sent<LoggedTransfer> sent = p2f.unacked(target, ssn);
                if (sent != null && sent.payload().logTag() == null)
                {
                    depends.add(target, sent.epoch(), plan.alignedReceiveEpoch(rank, target, sent.epoch()));
                }
            }
        }
        return new RecoveryReport(rank, depends.build(), new TreeSet<>(committedEpochs)).encode();
    }

    @Override
    public long[] recoveryLine(final Map<Integer, Long> restoring, final Map<Integer, byte[]> reports)
    {
        final Map<Integer, RecoveryReport> decoded = new HashMap<>();
        reports.forEach((r, bytes) ->
        {
            final RecoveryReport report = RecoveryReport.decode(bytes);
            if (report.rank() != r)
            {
                throw new IllegalArgumentException("rank " + r + " sent the recovery report of rank " + report.rank());
            }
            decoded.put(r, report);
        });
        return new RecoveryCoordinator(plan, nextReceive.length).line(restoring, decoded);
    }

    @Override
    public synchronized void cutCommitted(final long globalIndex)
    {
        committedEpochs.add(plan.epochAfterCut(rank, globalIndex));
        if (recorder != null)
        {
            recorder.committed(globalIndex);
        }
    }

    @Override
    public synchronized boolean resumed()
    {
        return resumed;
    }

    /**
     * The hello: the last transfer accepted from {@code peer} and the epochs they were received in, then the transfers
     * that landed ahead of one not yet come (this rank posts no receive for them again).
     */
    @Override
    public synchronized byte[] hello(final int peer)
    {
        final long last = p2f.lastAccepted(peer);
        final NavigableMap<Long, Integer> epochs = p2f.receptionEpochs(peer).headMap(last, true);
        final Set<Long> ahead = early.get(peer).keySet();
        final ByteBuffer b = ByteBuffer.allocate(Long.BYTES + 2 * Integer.BYTES + epochs.size() * (Long.BYTES +
            Integer.BYTES) + ahead.size() * Long.BYTES);
        b.putLong(last).putInt(epochs.size());
        epochs.forEach((ssn, epoch) -> b.putLong(ssn).putInt(epoch));
        b.putInt(ahead.size());
        ahead.forEach(b::putLong);
        return b.array();
    }

    /**
     * The transfers the peer holds are acknowledged with their original epochs (erratum #7) and never sent again;
     * those it lost are sent again: the logged ones, and those sent but not acknowledged, all of which were captured
     * at their send (a survivor's transfers to a rank that rolled back go to a higher cluster). Those it holds ahead
     * of one it lost are neither: it acknowledges them once that one came, and a transfer sent to it again would find
     * no receive (its rendezvous would wait for ever).
     */
    @Override
    public synchronized List<Replay> greeted(final int peer, final byte[] hello)
    {
        final ByteBuffer b = ByteBuffer.wrap(hello);
        final long last = b.getLong();
        final NavigableMap<Long, Integer> epochs = new TreeMap<>();
        for (int i = b.getInt(); i > 0; i--)
        {
            epochs.put(b.getLong(), b.getInt());
        }
        final TreeSet<Long> ahead = heldAheadByPeer.get(peer);
        ahead.clear();
        for (int i = b.getInt(); i > 0; i--)
        {
            ahead.add(b.getLong());
        }
        heldByPeer[peer] = last;
        peerEpochs.set(peer, epochs);
        p2f.suppressUpTo(peer, last);
        for (final long ssn : p2f.awaitingUpTo(peer, last))
        {
            acked(peer, new Ack(ssn, receptionEpoch(peer, ssn)));
        }
        final List<Replay> replays = new ArrayList<>();
        for (final dev.spillway.resilience.p2f.Replay<LoggedTransfer> r : p2f.replaysTo(peer, last))
        {
            if (ahead.contains(r.ssn()) ||
                r.from() == dev.spillway.resilience.p2f.Replay.From.NON_ACK && !done.get(peer).contains(r.ssn()))
            {
                continue;
            }
            if (r.payload().logTag() == null)
            {
                throw new IllegalStateException("rank " + rank + " must send transfer " + r.ssn() + " ('" +
                    r.payload().tag() + "' v" + r.payload().version() + ") to rank " + peer + " again, but its " +
                    "payload was not captured at its send");
            }
            replays.add(new Replay(new Stamp(r.ssn(), r.epoch(), r.phase()), r.payload().tag(),
                r.payload().version(), r.payload().logTag()));
            if (r.from() == dev.spillway.resilience.p2f.Replay.From.NON_ACK)
            {
                replayedFromNonAck++;
            }
            else
            {
                replayedFromLogs++;
            }
        }
        resent.get(peer).clear();
        replays.forEach(r -> resent.get(peer).add(r.stamp().ssn()));
        return replays;
    }

    @Override
    public synchronized boolean suppressed(final int target, final long ssn)
    {
        final boolean held = ssn <= heldByPeer[target] || heldAheadByPeer.get(target).contains(ssn);
        suppressedSends += held ? 1 : 0;
        return held;
    }

    @Override
    public synchronized void posting(final int target, final long ssn)
    {
        final LoggedTransfer sent = p2f.awaiting(target, ssn);
        if (sent != null)
        {
            done.get(target).add(ssn);
            if (recorder != null)
            {
                recorder.posted(target, sent.tag(), sent.version());
            }
        }
    }

    @Override
    public synchronized void record(final DistributedSpillway.Recorder recorder)
    {
        this.recorder = recorder;
    }

    @Override
    public synchronized boolean replayed(final int target, final long ssn)
    {
        return resent.get(target).contains(ssn);
    }

    private int receptionEpoch(final int peer, final long ssn)
    {
        final Map.Entry<Long, Integer> e = peerEpochs.get(peer).floorEntry(ssn);
        if (e == null)
        {
            throw new IllegalStateException("rank " + rank + ": rank " + peer + " holds transfer " + ssn + " but did " +
                "not say in which epoch it received it");
        }
        return e.getValue();
    }

    @Override
    public synchronized Figures figures()
    {
        return new Figures(sent, received, logged, loggedBytes, dependencies, gatedCommits,
            replayedFromLogs, replayedFromNonAck, suppressedSends, reexecutedSends, restoredEpoch);
    }

    /** @return the protocol's current state, for tests. */
    synchronized PastToFuture<LoggedTransfer> state()
    {
        return p2f;
    }
}
