package dev.spillway.rdma;

/**
 * A change in a peer's membership, as one rank's transport sees it: the peer was lost, or a new incarnation of it
 * rejoined the job.
 *
 * @param kind what happened.
 * @param rank the peer.
 * @param incarnation for {@link Kind#LOST}, the incarnation that was lost; for {@link Kind#REJOINED}, the new one.
 * @param reason why the peer is considered lost (as {@link Transport#lostReason} says); null for a rejoin.
 */
public record PeerEvent(Kind kind, int rank, int incarnation, String reason)
{
    /** The reason of a peer that said goodbye: it closed its transport, as at the end of a job. */
    public static final String CLOSED = "it closed its transport";

    /** What happened to the peer. */
    public enum Kind
    {
        /** The peer's incarnation is lost: every operation towards it fails, its late messages are dropped. */
        LOST,
        /** A new incarnation of the peer joined the running job: operations towards it work again. */
        REJOINED
    }

    /** @return the event of {@code incarnation} of {@code rank} being lost for {@code reason}. */
    public static PeerEvent lost(final int rank, final int incarnation, final String reason)
    {
        return new PeerEvent(Kind.LOST, rank, incarnation, reason);
    }

    /** @return whether the peer left by closing its transport, rather than by failing. */
    public boolean closed()
    {
        return kind == Kind.LOST && CLOSED.equals(reason);
    }

    /** @return the event of {@code rank} rejoining as {@code incarnation}. */
    public static PeerEvent rejoined(final int rank, final int incarnation)
    {
        return new PeerEvent(Kind.REJOINED, rank, incarnation, null);
    }
}
