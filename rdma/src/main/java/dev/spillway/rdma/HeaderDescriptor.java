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
 *   | payload length    | incarnation       |  24
 *   +-------------------+-------------------+  32
 * </pre>
 *
 * Sender and payload length travel in the header because JUCX 1.12 reports neither for a receive that completes
 * at once (the message was already waiting); the sender's incarnation lets a receiver drop a message of a lost
 * incarnation that a receive from any rank matched.
 */
final class HeaderDescriptor
{
    /** Byte order of every field. */
    static final ByteOrder BYTE_ORDER = ByteOrder.LITTLE_ENDIAN;
    /** The sending rank, an {@code int}. */
    static final int RANK_OFFSET = 0;
    /** The matching tag, an {@code int}. */
    static final int TAG_OFFSET = RANK_OFFSET + Integer.BYTES;
    /** Reserved: the sender's checkpoint epoch ({@code ckptEpoch}), an {@code int}. */
    static final int EPOCH_OFFSET = TAG_OFFSET + Integer.BYTES;
    /** Reserved: the sender's phase of the logging protocol, an {@code int}. */
    static final int PHASE_OFFSET = EPOCH_OFFSET + Integer.BYTES;
    /** The sequence number, a {@code long}. */
    static final int SEQ_OFFSET = PHASE_OFFSET + Integer.BYTES;
    /** Payload bytes that follow the header, an {@code int}. */
    static final int PAYLOAD_LENGTH_OFFSET = SEQ_OFFSET + Long.BYTES;
    /** The sender's incarnation, an {@code int} (the former padding). */
    static final int INCARNATION_OFFSET = PAYLOAD_LENGTH_OFFSET + Integer.BYTES;
    /** Encoded length of a header. */
    static final int LENGTH = INCARNATION_OFFSET + Integer.BYTES;

    private HeaderDescriptor()
    {
    }
}
