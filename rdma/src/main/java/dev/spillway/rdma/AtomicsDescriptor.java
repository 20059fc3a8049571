package dev.spillway.rdma;

import org.agrona.BitUtil;

import java.nio.ByteOrder;

/**
 * The wire layout of the emulated atomics: a request from the requesting rank's agent to the window owner's, and
 * the owner's reply. Both are transport-internal messages (see {@link TagCodec}) of {@link #REQUEST_MESSAGE} and
 * {@link #REPLY_MESSAGE} type, every field in {@link #BYTE_ORDER}.
 *
 * <pre>
 * Request:
 *   0                   4                   8
 *   +-------------------+-------------------+
 *   | operation         | window id         |   0
 *   +-------------------+-------------------+
 *   | request id                            |   8
 *   +---------------------------------------+
 *   | word offset in the window             |  16
 *   +---------------------------------------+
 *   | operand (delta, or expected value)    |  24
 *   +---------------------------------------+
 *   | update (compare-and-swap only)        |  32
 *   +-------------------+-------------------+
 *   | requester rank    | its incarnation   |  40
 *   +-------------------+-------------------+  48
 *
 * Reply:
 *   +---------------------------------------+
 *   | request id                            |   0
 *   +---------------------------------------+
 *   | value before the operation            |   8
 *   +-------------------+-------------------+
 *   | status            | padding           |  16
 *   +-------------------+-------------------+  24
 * </pre>
 *
 * The requester's rank and incarnation are in the request because JUCX 1.12 loses the sender tag of receives that
 * complete at once; the owner drops a request of a lost incarnation. A reply needs no incarnation: its request id
 * was never sent to an incarnation other than the owner's current one, and a lost owner's requests are forgotten.
 */
final class AtomicsDescriptor
{
    /** Byte order of every field. */
    static final ByteOrder BYTE_ORDER = ByteOrder.LITTLE_ENDIAN;

    /** Internal message type of a request (the low bits of its tag). */
    static final int REQUEST_MESSAGE = 1;
    /** Internal message type of a reply. */
    static final int REPLY_MESSAGE = 2;

    /** Operation code: add the operand, return the previous value. */
    static final int FETCH_AND_ADD = 1;
    /** Operation code: store the update if the word equals the operand, return the previous value. */
    static final int COMPARE_AND_SWAP = 2;

    /** Reply status: applied; the value field holds the word's previous value. */
    static final int STATUS_OK = 0;
    /** Reply status: the owner has no window with that id (closed?). */
    static final int STATUS_NO_WINDOW = 1;
    /** Reply status: the offset is outside the window or not 8-byte aligned. */
    static final int STATUS_BAD_OFFSET = 2;

    /** Request: the operation code, an {@code int}. */
    static final int OPERATION_OFFSET = 0;
    /** Request: the owner's window id, an {@code int}. */
    static final int WINDOW_ID_OFFSET = OPERATION_OFFSET + Integer.BYTES;
    /** Request: the requester's id for matching the reply, a {@code long}. */
    static final int REQUEST_ID_OFFSET = WINDOW_ID_OFFSET + Integer.BYTES;
    /** Request: the word's byte offset in the window, a {@code long}. */
    static final int WORD_OFFSET_OFFSET = REQUEST_ID_OFFSET + Long.BYTES;
    /** Request: the delta to add or the expected value, a {@code long}. */
    static final int OPERAND_OFFSET = WORD_OFFSET_OFFSET + Long.BYTES;
    /** Request: the value to store on a compare-and-swap match, a {@code long}. */
    static final int UPDATE_OFFSET = OPERAND_OFFSET + Long.BYTES;
    /** Request: the requesting rank, where the reply goes, an {@code int}. */
    static final int REQUESTER_OFFSET = UPDATE_OFFSET + Long.BYTES;
    /** Request: the requesting rank's incarnation, an {@code int}. */
    static final int REQUESTER_INCARNATION_OFFSET = REQUESTER_OFFSET + Integer.BYTES;
    /** Encoded length of a request, padded to 8 bytes. */
    static final int REQUEST_LENGTH = BitUtil.align(REQUESTER_INCARNATION_OFFSET + Integer.BYTES, Long.BYTES);

    /** Reply: the request id it answers, a {@code long}. */
    static final int REPLY_REQUEST_ID_OFFSET = 0;
    /** Reply: the word's value before the operation, a {@code long}. */
    static final int REPLY_VALUE_OFFSET = REPLY_REQUEST_ID_OFFSET + Long.BYTES;
    /** Reply: one of the {@code STATUS_} codes, an {@code int}. */
    static final int REPLY_STATUS_OFFSET = REPLY_VALUE_OFFSET + Long.BYTES;
    /** Encoded length of a reply, padded to 8 bytes. */
    static final int REPLY_LENGTH = BitUtil.align(REPLY_STATUS_OFFSET + Integer.BYTES, Long.BYTES);

    private AtomicsDescriptor()
    {
    }

    /** @return the operation's name, for messages. */
    static String operationName(final int operation)
    {
        return operation == FETCH_AND_ADD ? "fetchAndAdd" : "compareAndSwap";
    }
}
