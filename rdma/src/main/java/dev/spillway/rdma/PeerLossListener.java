package dev.spillway.rdma;

/** Told that a peer was lost: by the failure detector, or by the UCX agent when UCX reports the peer failed. */
@FunctionalInterface
interface PeerLossListener
{
    /**
     * @param rank the lost peer.
     * @param reason why it is considered lost, for messages.
     */
    void lost(int rank, String reason);
}
