package dev.spillway.rdma;

/**
 * The layout of the 64-bit UCX tags: bit 63 marks transport-internal messages, bits 32..62 carry the sender's rank,
 * bits 0..31 the user tag (or the internal message type). A receive from one rank matches every bit; a receive from
 * any rank, and the internal receives, match only the internal bit and the low 32 bits.
 */
final class TagCodec
{
    /** Set on transport-internal messages (the emulated atomics), clear on user messages. */
    static final long INTERNAL_BIT = 1L << 63;
    /** Where the sender's rank starts. */
    static final int RANK_SHIFT = 32;
    /** The user tag or internal message type. */
    static final long TAG_MASK = 0xFFFF_FFFFL;
    /** Match mask of a receive from one rank. */
    static final long ONE_SENDER_MASK = -1L;
    /** Match mask of a receive from any rank: the sender bits are ignored. */
    static final long ANY_SENDER_MASK = INTERNAL_BIT | TAG_MASK;

    private TagCodec()
    {
    }

    /** @return the tag of a user message from {@code sender}. */
    static long userTag(final int sender, final int tag)
    {
        return ((long)sender << RANK_SHIFT) | (tag & TAG_MASK);
    }

    /** @return the tag a user receive from {@code source} (or {@link Transport#ANY_SOURCE}) matches. */
    static long receiveTag(final int source, final int tag)
    {
        return source == Transport.ANY_SOURCE ? (tag & TAG_MASK) : userTag(source, tag);
    }

    /** @return the match mask of a user receive from {@code source} (or {@link Transport#ANY_SOURCE}). */
    static long receiveMask(final int source)
    {
        return source == Transport.ANY_SOURCE ? ANY_SENDER_MASK : ONE_SENDER_MASK;
    }

    /** @return the tag of an internal message of {@code type} from {@code sender}. */
    static long internalTag(final int sender, final int type)
    {
        return INTERNAL_BIT | userTag(sender, type);
    }

    /** @return the tag an internal receive of {@code type} from any rank matches, with {@link #ANY_SENDER_MASK}. */
    static long internalReceiveTag(final int type)
    {
        return INTERNAL_BIT | (type & TAG_MASK);
    }
}
