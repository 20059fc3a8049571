package dev.spillway.rdma;

import java.nio.ByteBuffer;

import static dev.spillway.rdma.HeaderDescriptor.BYTE_ORDER;
import static dev.spillway.rdma.HeaderDescriptor.EPOCH_OFFSET;
import static dev.spillway.rdma.HeaderDescriptor.INCARNATION_OFFSET;
import static dev.spillway.rdma.HeaderDescriptor.PAYLOAD_LENGTH_OFFSET;
import static dev.spillway.rdma.HeaderDescriptor.PHASE_OFFSET;
import static dev.spillway.rdma.HeaderDescriptor.RANK_OFFSET;
import static dev.spillway.rdma.HeaderDescriptor.SEQ_OFFSET;
import static dev.spillway.rdma.HeaderDescriptor.TAG_OFFSET;

/**
 * The header carried in front of every two-sided message. Fields a caller does not use stay at their defaults, so
 * the logging protocol's fields can be introduced later without changing call sites.
 *
 * <p>{@code rank} and {@code incarnation} name the sender: the transport stamps both on send (a caller passes
 * {@link #NO_RANK} and {@link #NO_INCARNATION}, or its own values) and a received header always carries the true
 * sender. {@code tag} selects the matching receive.
 *
 * <p>{@code epoch} and {@code phase} are reserved for the past-to-future logging protocol (seed 001): the sender's
 * checkpoint epoch ({@code ckptEpoch}, the interval between two of its checkpoints, which only a checkpoint
 * advances) and its phase, a Lamport-like scalar that a checkpoint increments and receptions max-merge (not a
 * position within the epoch). Neither is an RMA access epoch, and neither is a restart count (that is
 * {@code incarnation}). The transport carries them without interpreting them.
 *
 * @param rank sender rank, or {@link #NO_RANK} on send.
 * @param tag matching tag.
 * @param epoch reserved: the sender's checkpoint epoch ({@code ckptEpoch}), 0 by default.
 * @param phase reserved: the sender's phase of the logging protocol, 0 by default.
 * @param seq a sequence number for de-duplication and ordering, 0 by default.
 * @param incarnation the sender's incarnation ({@link TransportConfig#incarnation()}), or {@link #NO_INCARNATION}
 *        on send.
 */
public record Header(int rank, int tag, int epoch, int phase, long seq, int incarnation)
{
    /** Encoded size on the wire: the six fields and the payload length. */
    public static final int BYTES = HeaderDescriptor.LENGTH;
    /** Rank placeholder on send: the transport fills in the sender. */
    public static final int NO_RANK = -1;
    /** Incarnation placeholder on send: the transport fills in the sender's. */
    public static final int NO_INCARNATION = -1;

    /**
     * A header to send, the incarnation left to the transport.
     *
     * @param rank {@link #NO_RANK} or the sender's rank.
     * @param tag matching tag.
     * @param epoch reserved: the checkpoint epoch.
     * @param phase reserved: the logging protocol's phase.
     * @param seq a sequence number.
     */
    public Header(final int rank, final int tag, final int epoch, final int phase, final long seq)
    {
        this(rank, tag, epoch, phase, seq, NO_INCARNATION);
    }

    /**
     * @param tag matching tag.
     * @return a header to send with default epoch, phase and sequence.
     */
    public static Header of(final int tag)
    {
        return new Header(NO_RANK, tag, 0, 0, 0L);
    }

    /**
     * @param sender the sending rank.
     * @param senderIncarnation its incarnation.
     * @return this header as received: stamped with the sender.
     */
    Header stamped(final int sender, final int senderIncarnation)
    {
        return new Header(sender, tag, epoch, phase, seq, senderIncarnation);
    }

    /**
     * Writes this header with {@code sender} and its incarnation and the payload length at absolute index
     * {@code at}, laid out as {@link HeaderDescriptor} says.
     *
     * @param sender the sending rank.
     * @param senderIncarnation its incarnation.
     * @param length payload bytes that follow.
     * @param buffer destination.
     * @param at absolute index.
     */
    void encode(final int sender, final int senderIncarnation, final int length, final ByteBuffer buffer,
        final int at)
    {
        final ByteBuffer b = buffer.duplicate().order(BYTE_ORDER);
        b.putInt(at + RANK_OFFSET, sender);
        b.putInt(at + TAG_OFFSET, tag);
        b.putInt(at + EPOCH_OFFSET, epoch);
        b.putInt(at + PHASE_OFFSET, phase);
        b.putLong(at + SEQ_OFFSET, seq);
        b.putInt(at + PAYLOAD_LENGTH_OFFSET, length);
        b.putInt(at + INCARNATION_OFFSET, senderIncarnation);
    }

    /**
     * @param buffer source.
     * @param at absolute index of an encoded header.
     * @return the payload length it announces.
     */
    static int payloadLength(final ByteBuffer buffer, final int at)
    {
        return buffer.duplicate().order(BYTE_ORDER).getInt(at + PAYLOAD_LENGTH_OFFSET);
    }

    /**
     * @param buffer source.
     * @param at absolute index.
     * @return the header encoded there.
     */
    static Header decode(final ByteBuffer buffer, final int at)
    {
        final ByteBuffer b = buffer.duplicate().order(BYTE_ORDER);
        return new Header(b.getInt(at + RANK_OFFSET), b.getInt(at + TAG_OFFSET), b.getInt(at + EPOCH_OFFSET),
            b.getInt(at + PHASE_OFFSET), b.getLong(at + SEQ_OFFSET), b.getInt(at + INCARNATION_OFFSET));
    }
}
