package dev.spillway.rdma;

import java.nio.ByteBuffer;

import static dev.spillway.rdma.HeaderDescriptor.BYTE_ORDER;
import static dev.spillway.rdma.HeaderDescriptor.EPOCH_OFFSET;
import static dev.spillway.rdma.HeaderDescriptor.PADDING_OFFSET;
import static dev.spillway.rdma.HeaderDescriptor.PAYLOAD_LENGTH_OFFSET;
import static dev.spillway.rdma.HeaderDescriptor.PHASE_OFFSET;
import static dev.spillway.rdma.HeaderDescriptor.RANK_OFFSET;
import static dev.spillway.rdma.HeaderDescriptor.SEQ_OFFSET;
import static dev.spillway.rdma.HeaderDescriptor.TAG_OFFSET;

/**
 * The header carried in front of every two-sided message. Fields a caller does not use stay at their defaults, so
 * epochs, phases and sequence numbers can be introduced later without changing call sites.
 *
 * <p>{@code rank} is the sender: the transport stamps it on send (a caller passes {@link #NO_RANK} or its own rank)
 * and a received header always carries the true sender. {@code tag} selects the matching receive.
 *
 * @param rank sender rank, or {@link #NO_RANK} on send.
 * @param tag matching tag.
 * @param epoch the sender's epoch towards the receiver (checkpoint/logging protocols), 0 by default.
 * @param phase the sender's phase within the epoch, 0 by default.
 * @param seq a sequence number for de-duplication and ordering, 0 by default.
 */
public record Header(int rank, int tag, int epoch, int phase, long seq)
{
    /** Encoded size on the wire: the five fields, the payload length and 4 bytes of padding. */
    public static final int BYTES = HeaderDescriptor.LENGTH;
    /** Rank placeholder on send: the transport fills in the sender. */
    public static final int NO_RANK = -1;

    /**
     * @param tag matching tag.
     * @return a header with default epoch, phase and sequence.
     */
    public static Header of(final int tag)
    {
        return new Header(NO_RANK, tag, 0, 0, 0L);
    }

    /**
     * Writes this header with {@code sender} as rank and the payload length at absolute index {@code at}, laid out
     * as {@link HeaderDescriptor} says.
     *
     * @param sender the sending rank.
     * @param length payload bytes that follow.
     * @param buffer destination.
     * @param at absolute index.
     */
    void encode(final int sender, final int length, final ByteBuffer buffer, final int at)
    {
        final ByteBuffer b = buffer.duplicate().order(BYTE_ORDER);
        b.putInt(at + RANK_OFFSET, sender);
        b.putInt(at + TAG_OFFSET, tag);
        b.putInt(at + EPOCH_OFFSET, epoch);
        b.putInt(at + PHASE_OFFSET, phase);
        b.putLong(at + SEQ_OFFSET, seq);
        b.putInt(at + PAYLOAD_LENGTH_OFFSET, length);
        b.putInt(at + PADDING_OFFSET, 0);
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
            b.getInt(at + PHASE_OFFSET), b.getLong(at + SEQ_OFFSET));
    }
}
