package dev.spillway.rdma;

/**
 * The layout of the 64-bit UCX tags: bit 63 marks transport-internal messages, bits 48..62 carry the sender's
 * incarnation, bits 32..47 its rank, bits 0..31 the user tag (or the internal message type). A receive from one rank
 * matches every bit, so it matches only the incarnation of the sender that is current when it is posted; a receive
 * from any rank, and the internal receives, match only the internal bit and the low 32 bits. The sender bits alone
 * (rank and incarnation) select every message of one incarnation, for draining a lost one.
 */
final class TagCodec
{
    /** Set on transport-internal messages (the emulated atomics), clear on user messages. */
    static final long INTERNAL_BIT = 1L << 63;
    /** Where the sender's rank starts. */
    static final int RANK_SHIFT = 32;
    /** Where the sender's incarnation starts. */
    static final int INCARNATION_SHIFT = 48;
    /** The user tag or internal message type. */
    static final long TAG_MASK = 0xFFFF_FFFFL;
    /** The sender's rank and incarnation. */
    static final long SENDER_MASK = ~INTERNAL_BIT & ~TAG_MASK;
    /** Match mask of a receive from one rank. */
    static final long ONE_SENDER_MASK = -1L;
    /** Match mask of a receive from any rank: the sender bits are ignored. */
    static final long ANY_SENDER_MASK = INTERNAL_BIT | TAG_MASK;

    private TagCodec()
    {
    }

    /** @return the sender bits of {@code incarnation} of {@code rank}. */
    static long sender(final int rank, final int incarnation)
    {
        return ((long)incarnation << INCARNATION_SHIFT) | ((long)rank << RANK_SHIFT);
    }

    /** @return the tag of a user message from {@code incarnation} of {@code sender}. */
    static long userTag(final int sender, final int incarnation, final int tag)
    {
        return sender(sender, incarnation) | (tag & TAG_MASK);
    }

    /**
     * @param incarnation the current incarnation of {@code source} (ignored for {@link Transport#ANY_SOURCE}).
     * @return the tag a user receive from {@code source} (or {@link Transport#ANY_SOURCE}) matches.
     */
    static long receiveTag(final int source, final int incarnation, final int tag)
    {
        return source == Transport.ANY_SOURCE ? (tag & TAG_MASK) : userTag(source, incarnation, tag);
    }

    /** @return the match mask of a user receive from {@code source} (or {@link Transport#ANY_SOURCE}). */
    static long receiveMask(final int source)
    {
        return source == Transport.ANY_SOURCE ? ANY_SENDER_MASK : ONE_SENDER_MASK;
    }

    /** @return the tag of an internal message of {@code type} from {@code incarnation} of {@code sender}. */
    static long internalTag(final int sender, final int incarnation, final int type)
    {
        return INTERNAL_BIT | userTag(sender, incarnation, type);
    }

    /** @return the tag an internal receive of {@code type} from any rank matches, with {@link #ANY_SENDER_MASK}. */
    static long internalReceiveTag(final int type)
    {
        return INTERNAL_BIT | (type & TAG_MASK);
    }
}
