package dev.spillway.resilience.p2f;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * One rank's past-to-future protocol (seed 001 Fig. 3 with the errata of spec §A.2): its checkpoint epoch and
 * phase, and per channel the sends awaiting an ack, the log, the dependencies and the receptions.
 *
 * <p>Failure-free, a sender {@link #send stamps} each transfer and keeps it until the receiver's
 * {@link #receive reception} is {@link #acked acknowledged} with the receiver's epoch; then it either logs the
 * transfer (sent in an earlier epoch than received: past to future) or records the dependency. A {@link #cut}
 * opens the next epoch; its generation may commit only when every send ahead of it is acknowledged (erratum #5),
 * and {@link #committed} gives the state it keeps.
 *
 * <p>In a recovery the caller gathers {@link #dependencies()} for the {@link RecoveryLine}, registers the
 * {@link #expectOrphans orphans} each receiver holds, tells their senders to {@link #suppressUpTo suppress} them,
 * and sends each restarted rank its {@link #replaysTo replays}, in ssn order and released by the
 * {@link PhaseWatermark}.
 *
 * <p>Not thread-safe: one owner thread drives it.
 *
 * @param <P> the payload type: what a log entry keeps.
 */
public final class PastToFuture<P>
{
    /** What an ack made of a transfer. */
    public enum Acked
    {
        /** Past to future: the sender logged it. */
        LOGGED,
        /** Recorded as a dependency; the payload is released. */
        DEPENDENCY,
        /** An ack for a transfer neither awaiting one nor logged (a second ack of a transfer sent again); ignored. */
        STALE
    }

    private final int rank;
    private final P2fOptions options;
    private final Set<Mutation> mutations;
    private final OutChannel<P>[] out;
    private final InChannel[] in;
    private final NavigableMap<Integer, Integer> orphansByPhase = new TreeMap<>();
    private int epoch;
    private int phase;

    /**
     * @param rank         this rank.
     * @param ranks        how many ranks the job has.
     * @param initialEpoch the epoch the run starts in: 1, plus the offset of the rank's cluster.
     * @param options      how the protocol runs.
     */
    public PastToFuture(final int rank, final int ranks, final int initialEpoch, final P2fOptions options)
    {
        this(rank, ranks, initialEpoch, options, EnumSet.noneOf(Mutation.class));
    }

    PastToFuture(final int rank, final int ranks, final int initialEpoch, final P2fOptions options,
        final Set<Mutation> mutations)
    {
        this(rank, options, mutations, channels(ranks), inChannels(ranks), initialEpoch, 1);
    }

    private static <P> OutChannel<P>[] channels(final int ranks)
    {
        final OutChannel<P>[] out = OutChannel.array(ranks);
        for (int r = 0; r < ranks; r++)
        {
            out[r] = new OutChannel<>();
        }
        return out;
    }

    private static InChannel[] inChannels(final int ranks)
    {
        final InChannel[] in = new InChannel[ranks];
        for (int r = 0; r < ranks; r++)
        {
            in[r] = new InChannel();
        }
        return in;
    }

    private PastToFuture(final int rank, final P2fOptions options, final Set<Mutation> mutations,
        final OutChannel<P>[] out, final InChannel[] in, final int epoch, final int phase)
    {
        this.rank = rank;
        this.options = options;
        this.mutations = mutations;
        this.out = out;
        this.in = in;
        this.epoch = epoch;
        this.phase = phase;
    }

    /**
     * Resumes a rank at a committed generation's cut: nothing awaits an ack, no orphan is pending.
     *
     * @param section what the generation kept.
     * @param options how the protocol runs.
     * @param <P>     the payload type.
     * @return the restored protocol.
     */
    public static <P> PastToFuture<P> restore(final ProtocolSection<P> section, final P2fOptions options)
    {
        return restore(section, options, EnumSet.noneOf(Mutation.class));
    }

    static <P> PastToFuture<P> restore(final ProtocolSection<P> section, final P2fOptions options,
        final Set<Mutation> mutations)
    {
        final OutChannel<P>[] out = OutChannel.array(section.out.length);
        final InChannel[] in = new InChannel[section.in.length];
        for (int r = 0; r < out.length; r++)
        {
            out[r] = section.out[r].copy();
            in[r] = section.in[r].copy();
        }
        return new PastToFuture<>(section.rank, options, mutations, out, in, section.epoch, section.phase);
    }

    /** @return this rank. */
    public int rank()
    {
        return rank;
    }

    /** @return the current checkpoint epoch. */
    public int epoch()
    {
        return epoch;
    }

    /** @return the current phase. */
    public int phase()
    {
        return phase;
    }

    /**
     * Stamps the next transfer to {@code target} and keeps it until its ack.
     *
     * @param target  the receiving rank.
     * @param payload what is sent, kept for the log.
     * @return the stamp to send with it.
     */
    public Stamp send(final int target, final P payload)
    {
        final OutChannel<P> channel = out[target];
        final long ssn = channel.nextSsn++;
        final boolean suppressed = ssn <= channel.suppressUpTo && !mutations.contains(Mutation.NO_DUPLICATE_SUPPRESSION);
        if (!suppressed || !mutations.contains(Mutation.NO_DUPLICATE_REACK))
        {
            channel.nonAck.put(ssn, new OutChannel.Sent<>(ssn, epoch, phase, payload));
        }
        return new Stamp(target, ssn, epoch, phase, suppressed);
    }

    /**
     * A transfer from {@code source} arrived. Transfers of one channel must arrive in ssn order (the caller orders
     * them); the reception's epoch is the epoch of the receive's place in the program, which is not the current
     * epoch when a receive placed before a cut completes after it.
     *
     * @param source       the sending rank.
     * @param stamp        its stamp.
     * @param receiveEpoch the epoch of the receive.
     * @return whether to deliver it and how to acknowledge it.
     * @throws IllegalStateException if a transfer between the last one accepted and this one is missing, or a stamp
     *                               without its payload is not a duplicate.
     */
    public Reception receive(final int source, final Stamp stamp, final int receiveEpoch)
    {
        final InChannel channel = in[source];
        final long ssn = stamp.ssn();
        if (ssn > channel.last || mutations.contains(Mutation.NO_DUPLICATE_SUPPRESSION) && !stamp.suppressed())
        {
            if (ssn > channel.last + 1)
            {
                throw new IllegalStateException("rank " + rank + " received transfer " + ssn + " from rank " + source
                    + " but accepted only up to " + channel.last + ": a transfer was lost");
            }
            if (stamp.suppressed())
            {
                throw new IllegalStateException("rank " + rank + " received the stamp of transfer " + ssn + " from rank "
                    + source + " without its payload, but does not hold it (accepted up to " + channel.last + ")");
            }
            final int carried = stamp.phase() + (stamp.epoch() < receiveEpoch ? 1 : 0);
            channel.accept(ssn, receiveEpoch, carried);
            return new Reception(true, receiveEpoch, carried, Reception.NO_PHASE);
        }
        final Integer orphanPhase = channel.orphans.remove(ssn);
        int cleared = Reception.NO_PHASE;
        if (orphanPhase != null && orphansByPhase.merge(orphanPhase, -1, Integer::sum) == 0)
        {
            orphansByPhase.remove(orphanPhase);
            cleared = orphanPhase;
        }
        final boolean reAck = orphanPhase == null || !mutations.contains(Mutation.NO_DUPLICATE_REACK);
        return new Reception(false, reAck ? channel.epochOf(ssn) : Reception.NO_ACK, Reception.NO_PHASE, cleared);
    }

    /**
     * The program consumed a received transfer: what it sends from now on is causally after it. Phases merge here,
     * not on arrival, so a re-execution that consumes the same transfers in the same order reaches the same phases
     * whatever order they arrive in.
     *
     * @param phase the reception's {@link Reception#phase()}.
     */
    public void consumed(final int phase)
    {
        this.phase = Math.max(this.phase, phase);
    }

    /**
     * {@code target} acknowledged a transfer: log it if it was received in a later epoch than sent, else record the
     * dependency and release it.
     *
     * @param target       the rank that received it.
     * @param ssn          its position in the channel.
     * @param receiveEpoch the epoch it was received in.
     * @return what became of it.
     */
    public Acked acked(final int target, final long ssn, final int receiveEpoch)
    {
        final OutChannel<P> channel = out[target];
        final OutChannel.Sent<P> sent = channel.nonAck.remove(ssn);
        if (sent == null)
        {
            return reAcked(channel, ssn, receiveEpoch);
        }
        final boolean pastToFuture = sent.epoch() < receiveEpoch && !mutations.contains(Mutation.NO_LOGGING);
        if (pastToFuture || options.logAll())
        {
            channel.log.put(ssn, new OutChannel.Logged<>(ssn, sent.epoch(), sent.phase(), receiveEpoch, sent.payload()));
        }
        if (!pastToFuture)
        {
            channel.dependencies.merge(sent.epoch(), receiveEpoch, Math::max);
        }
        return pastToFuture ? Acked.LOGGED : Acked.DEPENDENCY;
    }

    /**
     * The ack of a transfer sent again from the log: it must come back with the epoch it was first received in,
     * since a restarted rank cuts where it cut before. Anything else means the cut positions moved, which the
     * protocol does not support.
     */
    private Acked reAcked(final OutChannel<P> channel, final long ssn, final int receiveEpoch)
    {
        final OutChannel.Logged<P> entry = channel.log.get(ssn);
        if (entry == null)
        {
            return Acked.STALE;
        }
        if (entry.receiveEpoch() != receiveEpoch)
        {
            throw new IllegalStateException("rank " + rank + ": logged transfer " + ssn + " was received in epoch "
                + entry.receiveEpoch() + " and again in epoch " + receiveEpoch + "; a restarted rank must cut where it"
                + " cut before");
        }
        return Acked.LOGGED;
    }

    /**
     * Takes a checkpoint: everything after this call belongs to the next epoch and phase.
     *
     * @return the cut, to commit once {@link #mayCommit} allows.
     */
    public EpochCut cut()
    {
        epoch++;
        phase++;
        final long[] nextSsn = new long[out.length];
        final InChannel[] received = new InChannel[in.length];
        for (int r = 0; r < out.length; r++)
        {
            nextSsn[r] = out[r].nextSsn;
            received[r] = in[r].copy();
        }
        return new EpochCut(epoch, phase, nextSsn, received);
    }

    /**
     * @param cut a cut of this rank.
     * @return true once every send ahead of it is acknowledged, so its logs and dependencies are complete.
     */
    public boolean mayCommit(final EpochCut cut)
    {
        if (mutations.contains(Mutation.NO_ACK_DRAIN))
        {
            return true;
        }
        for (int r = 0; r < out.length; r++)
        {
            if (out[r].firstUnacked() < cut.nextSsn[r])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @param cut     a cut that {@link #mayCommit} allows.
     * @param gcEpoch the global watermark: log entries received before it are no longer needed.
     * @return the state the cut's generation keeps.
     */
    public ProtocolSection<P> committed(final EpochCut cut, final int gcEpoch)
    {
        final OutChannel<P>[] kept = OutChannel.array(out.length);
        for (int r = 0; r < out.length; r++)
        {
            kept[r] = out[r].keptBefore(cut.nextSsn[r], cut.epoch, gcEpoch);
        }
        return new ProtocolSection<>(rank, cut.epoch, cut.phase, kept, cut.in);
    }

    /**
     * The engine's form of {@link #committed(EpochCut, int)}: its receptions are taken as they land, after the cut
     * was placed in the program, so the receptions the generation keeps are those submitted before the cut, which
     * have all landed by the commit.
     *
     * @param cut            a cut that {@link #mayCommit} allows.
     * @param gcEpoch        the global watermark.
     * @param receivesBefore per source, how many receives were submitted before the cut.
     * @return the state the cut's generation keeps.
     */
    public ProtocolSection<P> committed(final EpochCut cut, final int gcEpoch, final long[] receivesBefore)
    {
        final ProtocolSection<P> section = committed(cut, gcEpoch);
        for (int r = 0; r < in.length; r++)
        {
            if (in[r].last < receivesBefore[r] - 1)
            {
                throw new IllegalStateException("rank " + rank + " commits the cut opening epoch " + cut.epoch +
                    " having accepted transfers from rank " + r + " up to " + in[r].last + ", but " +
                    receivesBefore[r] + " were received before the cut");
            }
            section.in[r] = in[r].keptBefore(receivesBefore[r]);
        }
        return section;
    }

    /** @return the epochs of the receptions from {@code source}: first ssn accepted in an epoch, to the epoch. */
    public NavigableMap<Long, Integer> receptionEpochs(final int source)
    {
        return new TreeMap<>(in[source].epochFrom);
    }

    /** @return the transfers to {@code target} up to {@code ssn} that await their ack, in ssn order. */
    public List<Long> awaitingUpTo(final int target, final long ssn)
    {
        return new ArrayList<>(out[target].nonAck.headMap(ssn, true).keySet());
    }

    /** @return the payload of the transfer to {@code target} at {@code ssn} awaiting its ack, or null. */
    public P awaiting(final int target, final long ssn)
    {
        final OutChannel.Sent<P> sent = out[target].nonAck.get(ssn);
        return sent == null ? null : sent.payload();
    }

    /** @return the transfer to {@code target} at {@code ssn} if it awaits its ack, else null. */
    OutChannel.Sent<P> unacked(final int target, final long ssn)
    {
        return out[target].nonAck.get(ssn);
    }

    /** @return how many transfers sent before {@code cut} still await their ack. */
    public int awaitingAcksBefore(final EpochCut cut)
    {
        int n = 0;
        for (int r = 0; r < out.length; r++)
        {
            n += out[r].nonAck.headMap(cut.nextSsn[r], false).size();
        }
        return n;
    }

    /**
     * Drops what no recovery can ask for any more: log entries received before {@code gcEpoch} and dependencies of
     * sends before it.
     *
     * @param gcEpoch the smallest newest-committed epoch over all ranks.
     */
    public void collect(final int gcEpoch)
    {
        for (final OutChannel<P> channel : out)
        {
            channel.collect(gcEpoch);
        }
    }

    /** @return the current dependencies, for the recovery line. */
    public SentPerEpoch dependencies()
    {
        final Map<Integer, NavigableMap<Integer, Integer>> byTarget = new HashMap<>();
        for (int r = 0; r < out.length; r++)
        {
            if (!out[r].dependencies.isEmpty())
            {
                byTarget.put(r, new TreeMap<>(out[r].dependencies));
            }
        }
        return new SentPerEpoch(byTarget);
    }

    /**
     * @param target a rank.
     * @return the ssn the next transfer to {@code target} will have.
     */
    public long nextSsn(final int target)
    {
        return out[target].nextSsn;
    }

    /**
     * @param source a rank.
     * @return the ssn of the last transfer accepted from {@code source}, -1 if none.
     */
    public long lastAccepted(final int source)
    {
        return in[source].last;
    }

    /**
     * Registers as orphans the receptions from {@code source} at or after {@code fromSsn}: {@code source} rolled
     * back before sending them and will send them again.
     *
     * @param source  a rank that rolled back.
     * @param fromSsn its next ssn towards this rank.
     * @return how many orphans were registered, by the phase they were received in.
     */
    public NavigableMap<Integer, Integer> expectOrphans(final int source, final long fromSsn)
    {
        final InChannel channel = in[source];
        final NavigableMap<Integer, Integer> byPhase = new TreeMap<>();
        for (long ssn = Math.max(0, fromSsn); ssn <= channel.last; ssn++)
        {
            final int receivedIn = channel.phaseOf(ssn);
            if (channel.orphans.put(ssn, receivedIn) == null)
            {
                byPhase.merge(receivedIn, 1, Integer::sum);
                orphansByPhase.merge(receivedIn, 1, Integer::sum);
            }
        }
        return byPhase;
    }

    /** @return how many orphans this rank still awaits. */
    public int pendingOrphans()
    {
        int pending = 0;
        for (final int count : orphansByPhase.values())
        {
            pending += count;
        }
        return pending;
    }

    /**
     * Sends to {@code target} up to {@code ssn} are orphans it holds: they go out as stamps only, and their acks
     * rebuild the log and the dependencies.
     *
     * @param target the receiving rank.
     * @param ssn    the last transfer it accepted from this rank.
     */
    public void suppressUpTo(final int target, final long ssn)
    {
        out[target].suppressUpTo = ssn;
    }

    /**
     * What this rank sends again to a rank that restarted: in ssn order, the logged transfers it accepted after
     * {@code receiverLast} (this rank will not send them again) and every transfer awaiting an ack.
     *
     * @param target       the restarted rank.
     * @param receiverLast the last ssn it accepted from this rank after its restart.
     * @return the replays in ssn order.
     * @throws IllegalStateException if a transfer it needs is neither logged nor awaiting an ack.
     */
    public List<Replay<P>> replaysTo(final int target, final long receiverLast)
    {
        final OutChannel<P> channel = out[target];
        final NavigableMap<Long, Replay<P>> replays = new TreeMap<>();
        final NavigableMap<Long, OutChannel.Logged<P>> undone = receiverLast < channel.nextSsn
            ? channel.log.subMap(receiverLast, false, channel.nextSsn, false) : new TreeMap<>();
        for (final OutChannel.Logged<P> entry : undone.values())
        {
            replays.put(entry.ssn(), new Replay<>(target, entry.ssn(), entry.epoch(), entry.phase(), entry.payload(),
                Replay.From.LOG));
        }
        for (final OutChannel.Sent<P> sent : channel.nonAck.values())
        {
            replays.put(sent.ssn(), new Replay<>(target, sent.ssn(), sent.epoch(), sent.phase(), sent.payload(),
                Replay.From.NON_ACK));
        }
        for (long ssn = receiverLast + 1; ssn < channel.nextSsn; ssn++)
        {
            if (!replays.containsKey(ssn))
            {
                throw new IllegalStateException("rank " + rank + " cannot send transfer " + ssn + " again to rank "
                    + target + ": it is neither logged nor awaiting an ack (collected too early, or a dependency the"
                    + " recovery line missed)");
            }
        }
        return new ArrayList<>(replays.values());
    }

    /** @return how many sends await an ack. */
    int awaitingAcks()
    {
        int awaiting = 0;
        for (final OutChannel<P> channel : out)
        {
            awaiting += channel.nonAck.size();
        }
        return awaiting;
    }

    /** @return whether the log holds the transfer {@code ssn} to {@code target}. */
    boolean logs(final int target, final long ssn)
    {
        return out[target].log.containsKey(ssn);
    }

    /** Ends a recovery session: no orphan is expected, nothing is suppressed. */
    public void endRecovery()
    {
        for (int r = 0; r < out.length; r++)
        {
            out[r].suppressUpTo = -1;
            in[r].orphans.clear();
        }
        orphansByPhase.clear();
    }

    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder("rank " + rank + " epoch " + epoch + " phase " + phase);
        for (int source = 0; source < in.length; source++)
        {
            if (!in[source].orphans.isEmpty())
            {
                text.append(", orphans from rank ").append(source).append(" (ssn=phase) ").append(in[source].orphans);
            }
        }
        return text.toString();
    }
}
