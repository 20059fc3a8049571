package dev.spillway.rdma;

import java.nio.ByteOrder;

/**
 * The wire layout of a {@link Header}: {@link #LENGTH} bytes in {@link #BYTE_ORDER} in front of every two-sided
 * message.
 *
 * <pre>
 *   0                   4                   8
 *   +-------------------+-------------------+
 *   | rank (sender)     | tag               |   0
 *   +-------------------+-------------------+
 *   | epoch             | phase             |   8
 *   +-------------------+-------------------+
 *   | seq                                   |  16
 *   +-------------------+-------------------+
 *   | payload length    | padding (0)       |  24
 *   +-------------------+-------------------+  32
 * </pre>
 *
 * Sender and payload length travel in the header because JUCX 1.12 reports neither for a receive that completes
 * at once (the message was already waiting).
 */
final class HeaderDescriptor
{
    /** Byte order of every field. */
    static final ByteOrder BYTE_ORDER = ByteOrder.LITTLE_ENDIAN;
    /** The sending rank, an {@code int}. */
    static final int RANK_OFFSET = 0;
    /** The matching tag, an {@code int}. */
    static final int TAG_OFFSET = RANK_OFFSET + Integer.BYTES;
    /** The sender's epoch towards the receiver, an {@code int}. */
    static final int EPOCH_OFFSET = TAG_OFFSET + Integer.BYTES;
    /** The sender's phase within the epoch, an {@code int}. */
    static final int PHASE_OFFSET = EPOCH_OFFSET + Integer.BYTES;
    /** The sequence number, a {@code long}. */
    static final int SEQ_OFFSET = PHASE_OFFSET + Integer.BYTES;
    /** Payload bytes that follow the header, an {@code int}. */
    static final int PAYLOAD_LENGTH_OFFSET = SEQ_OFFSET + Long.BYTES;
    /** Zero padding, an {@code int}, so that the length is a multiple of 8. */
    static final int PADDING_OFFSET = PAYLOAD_LENGTH_OFFSET + Integer.BYTES;
    /** Encoded length of a header. */
    static final int LENGTH = PADDING_OFFSET + Integer.BYTES;

    private HeaderDescriptor()
    {
    }
}
