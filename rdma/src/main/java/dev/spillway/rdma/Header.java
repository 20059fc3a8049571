package dev.spillway.rdma;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

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
    public static final int BYTES = 32;
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
     * Writes this header with {@code sender} as rank and the payload length at absolute index {@code at},
     * little-endian. Sender and length travel in the header because JUCX 1.12 reports neither for a receive that
     * completes at once (the message was already waiting).
     *
     * @param sender the sending rank.
     * @param length payload bytes that follow.
     * @param buffer destination.
     * @param at absolute index.
     */
    void encode(final int sender, final int length, final ByteBuffer buffer, final int at)
    {
        final ByteBuffer b = buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(at, sender);
        b.putInt(at + 4, tag);
        b.putInt(at + 8, epoch);
        b.putInt(at + 12, phase);
        b.putLong(at + 16, seq);
        b.putInt(at + 24, length);
        b.putInt(at + 28, 0);
    }

    /**
     * @param buffer source.
     * @param at absolute index of an encoded header.
     * @return the payload length it announces.
     */
    static int payloadLength(final ByteBuffer buffer, final int at)
    {
        return buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN).getInt(at + 24);
    }

    /**
     * @param buffer source.
     * @param at absolute index.
     * @return the header encoded there.
     */
    static Header decode(final ByteBuffer buffer, final int at)
    {
        final ByteBuffer b = buffer.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return new Header(b.getInt(at), b.getInt(at + 4), b.getInt(at + 8), b.getInt(at + 12), b.getLong(at + 16));
    }
}
