package dev.spillway.rdma;

/**
 * Told of peers lost and rejoined ({@link Transport#addPeerListener}). Each listener hears every event once, in the
 * order the transport saw them, on the transport's event thread (one per transport; for an
 * {@link InProcessFabric}, one for the fabric): never on the caller's thread and never on the progress thread.
 * It may call the transport; it should return soon, since it holds up the events after it.
 */
@FunctionalInterface
public interface PeerListener
{
    /** @param event the peer lost or rejoined. */
    void onPeerEvent(PeerEvent event);
}
