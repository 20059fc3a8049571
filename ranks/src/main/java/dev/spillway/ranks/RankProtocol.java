package dev.spillway.ranks;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * A rank's message-logging protocol (past-to-future logging, spec §A.4), driven by {@link DistributedSpillway}: it
 * stamps every transfer, is told of receptions and their acks, may hold a checkpoint's commit until its sends are
 * acknowledged, and keeps its state in each generation. {@link #NONE} keeps the runtime as it is without one.
 *
 * <p>Submission-time calls ({@link #sending}, {@link #receiving}, {@link #cut}) come under the runtime's submission
 * lock, in program order, so their positions relative to cuts are those of the program; the others come from any
 * thread. Transfers before the cut a run resumed from are not submitted again, so none of these calls is made for
 * them: {@link #restored} gives the state at that cut instead.
 */
public interface RankProtocol
{
    /** Tags with this prefix are the protocol's: no data object of the program may use one. */
    String RESERVED = "spillway.";
    /** The tag of the generation block that keeps the protocol's state. */
    String SECTION = RESERVED + "rank-protocol";

    /** No protocol: transfers are not stamped or acknowledged. */
    RankProtocol NONE = new RankProtocol()
    {
        @Override
        public Stamp sending(final int target, final String tag, final int version, final int bytes)
        {
            return Stamp.NONE;
        }

        @Override
        public long receiving(final int source)
        {
            return Stamp.NONE.ssn();
        }

        @Override
        public boolean active()
        {
            return false;
        }
    };

    /** @return whether transfers are stamped and acknowledged at all. */
    default boolean active()
    {
        return true;
    }

    /**
     * This rank submits its half sending version {@code version} of {@code tag} ({@code bytes} long) to
     * {@code target}.
     *
     * @return the stamp the transfer carries.
     */
    Stamp sending(int target, String tag, int version, int bytes);

    /**
     * @return whether this rank's transfers to {@code target} are logged at their send (with aligned cuts the
     *         receiver's epoch is known there): the runtime then copies each payload into the local object
     *         {@link #logTag}, an ordinary object that spills and is saved by the next checkpoint. It must depend
     *         on nothing but the job's plan: the copies are tasks of the program, before a restored cut too.
     */
    default boolean capturesAtSend(final int target)
    {
        return false;
    }

    /**
     * The payload of a transfer logged at its send is about to be posted (its send task holds it): the protocol keeps
     * what it needs to send it again without a task of the program. The local object {@code logTag} gets the same
     * bytes, for the checkpoint.
     */
    default void captured(final String logTag, final ByteBuffer payload)
    {
    }

    /** @return the payload captured as {@code logTag}, or null when the protocol no longer holds it. */
    default ByteBuffer payload(final String logTag)
    {
        return null;
    }

    /** @return the tag of the local object holding the payload of version {@code version} of {@code tag} sent to {@code target}. */
    static String logTag(final String tag, final int version, final int target)
    {
        return RESERVED + "log '" + tag + "' v" + version + " to " + target;
    }

    /**
     * This rank submits its half receiving the next transfer from {@code source}.
     *
     * @return the position in the channel (ssn) the transfer must carry.
     */
    long receiving(int source);

    /** A cut requested at {@code globalIndex}: what is submitted from now on belongs to the next epoch. */
    default void cut(final long globalIndex)
    {
    }

    /**
     * The transfer from {@code source} stamped {@code stamp} landed. Receptions are taken in channel order; one that
     * arrives ahead of an earlier one waits for it.
     *
     * @return the acks now due to {@code source}, in ssn order.
     */
    default List<Ack> received(final int source, final Stamp stamp)
    {
        return List.of();
    }

    /** {@code target} acknowledged a transfer this rank sent it. */
    default void acked(final int target, final Ack ack)
    {
    }

    /** @return whether the generation of the cut at {@code globalIndex} may commit: its sends are all acknowledged. */
    default boolean mayCommit(final long globalIndex)
    {
        return true;
    }

    /** @return what the generation of the cut at {@code globalIndex} waits for while {@link #mayCommit} is false. */
    default String commitWait(final long globalIndex)
    {
        return "nothing";
    }

    /**
     * @return the state the generation of the cut at {@code globalIndex} keeps as its {@link #SECTION} block, or
     *         null for none; asked once, when the generation commits.
     */
    default byte[] section(final long globalIndex)
    {
        return null;
    }

    /** The run resumes from a generation whose {@link #SECTION} block held {@code section}. */
    default void restored(final byte[] section)
    {
    }

    /** Every rank committed its generation of the cut at {@code globalIndex}: older state may be dropped. */
    default void globallyCommitted(final long globalIndex)
    {
    }

    /** This rank committed its generation of the cut at {@code globalIndex}: the recovery line may send it there. */
    default void cutCommitted(final long globalIndex)
    {
    }

    /**
     * A recovery session asks this rank, which runs on, what the recovery line needs: its dependencies and the
     * generations it can restart from. Called with no send being posted.
     *
     * @param session the recovery session that asks.
     * @return the report, for {@link #recoveryLine} on rank 0.
     */
    default byte[] recoveryReport(final long session)
    {
        return new byte[0];
    }

    /**
     * From now on {@code recorder} hears, in the order the protocol sees them, of the sends this rank posts, the cuts
     * it commits and the recovery reports it gives: what an offline recovery line needs.
     */
    default void record(final DistributedSpillway.Recorder recorder)
    {
    }

    /** The runtime closed: what the protocol keeps on disk goes. */
    default void close()
    {
    }

    /**
     * Rank 0, in a recovery session: the recovery line.
     *
     * @param restoring per lost rank, the global index of the cut it restores ({@code Cut.LOCAL}: the start).
     * @param reports   per other rank, its {@link #recoveryReport}.
     * @return per rank, the global index of the cut to restart from ({@code Cut.LOCAL}: the start), or
     *         {@link #KEEPS_RUNNING}.
     */
    default long[] recoveryLine(final Map<Integer, Long> restoring, final Map<Integer, byte[]> reports)
    {
        throw new UnsupportedOperationException("this protocol computes no recovery line");
    }

    /** In {@link #recoveryLine}: a rank that does not roll back. */
    long KEEPS_RUNNING = Long.MAX_VALUE;

    /** @return whether this incarnation resumed from the protocol's state: it greets every peer before sending. */
    default boolean resumed()
    {
        return false;
    }

    /** @return what this rank tells {@code peer}, a rank that started again (or this one did): what it holds of it. */
    default byte[] hello(final int peer)
    {
        return new byte[0];
    }

    /**
     * {@code peer} greeted this rank with {@code hello}: its transfers that the peer holds are acknowledged and will
     * not be sent again, and the ones it lost are to be sent again.
     *
     * @return the transfers to send again, in ssn order.
     */
    default List<Replay> greeted(final int peer, final byte[] hello)
    {
        return List.of();
    }

    /** @return whether the send of transfer {@code ssn} to {@code target} is skipped: the target holds it already. */
    default boolean suppressed(final int target, final long ssn)
    {
        return false;
    }

    /**
     * The send of transfer {@code ssn} to {@code target} is being posted: if the target starts again before it is
     * acknowledged, it is sent again.
     */
    default void posting(final int target, final long ssn)
    {
    }

    /** @return whether transfer {@code ssn} to {@code target} was sent again already, after the target greeted this rank. */
    default boolean replayed(final int target, final long ssn)
    {
        return false;
    }

    /**
     * A transfer to send again: its stamp, the version of the object it moved and the local object its payload was
     * copied into.
     */
    record Replay(Stamp stamp, String tag, int version, String logTag)
    {
    }

    /** @return this rank's protocol figures so far, for reports. */
    default Figures figures()
    {
        return Figures.NONE;
    }

    /**
     * What a transfer carries for the protocol.
     *
     * @param ssn   its position in the channel from its sender to its target.
     * @param epoch the sender's checkpoint epoch at the send.
     * @param phase the sender's phase at the send.
     */
    record Stamp(long ssn, int epoch, int phase)
    {
        /** The stamp of a transfer when no protocol runs. */
        public static final Stamp NONE = new Stamp(-1, 0, 0);
    }

    /**
     * A receiver's acknowledgement.
     *
     * @param ssn   the transfer's position in the channel.
     * @param epoch the receiver's checkpoint epoch at the reception.
     */
    record Ack(long ssn, int epoch)
    {
    }

    /**
     * One rank's protocol counts.
     *
     * @param sent          transfers it stamped and sent.
     * @param received      transfers it received and acknowledged.
     * @param logged        its sends acknowledged from a later epoch: logged (past to future).
     * @param loggedBytes   their bytes.
     * @param dependencies  its sends acknowledged in their own epoch: recorded as dependencies.
     * @param gatedCommits  checkpoint generations whose commit waited for acks.
     * @param replayedFromLogs   logged transfers it sent again to ranks that started again.
     * @param replayedFromNonAck transfers it sent again that those ranks had not acknowledged.
     * @param suppressed    re-executed sends it skipped because their target held them.
     * @param reexecutedSends sends it stamped that an earlier incarnation of it had stamped, suppressed ones included.
     * @param restoredEpoch the epoch of the generation this incarnation resumed from, or -1 when it did not resume.
     */
    record Figures(long sent, long received, long logged, long loggedBytes, long dependencies, long gatedCommits,
        long replayedFromLogs, long replayedFromNonAck, long suppressed, long reexecutedSends, int restoredEpoch)
    {
        /** No protocol. */
        public static final Figures NONE = new Figures(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1);

        /** @return transfers it sent again, from its logs and unacknowledged. */
        public long replayed()
        {
            return replayedFromLogs + replayedFromNonAck;
        }
    }
}
