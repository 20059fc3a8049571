package dev.spillway.rdma;

/** Told that a peer's incarnation was lost: by the failure detector, or by UCX when it reports the peer failed. */
@FunctionalInterface
interface PeerLossListener
{
    /**
     * @param rank the lost peer.
     * @param incarnation its incarnation that was lost (a report about an older one is ignored).
     * @param reason why it is considered lost, for messages.
     */
    void lost(int rank, int incarnation, String reason);
}
