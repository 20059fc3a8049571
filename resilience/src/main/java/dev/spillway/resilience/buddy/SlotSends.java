package dev.spillway.resilience.buddy;

import dev.spillway.rdma.Collectives;
import dev.spillway.rdma.Header;
import dev.spillway.rdma.Transport;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A small message per slot of a ring (a notice or a credit) to one rank with one tag: a slot's buffer is written
 * again only once its previous send completed. One thread uses it.
 */
final class SlotSends
{
    private final Transport transport;
    private final int target;
    private final int tag;
    private final ByteBuffer[] buffers = new ByteBuffer[BuddyWire.SLOTS];
    private final CompletableFuture<?>[] sent = new CompletableFuture<?>[BuddyWire.SLOTS];

    SlotSends(final Transport transport, final int target, final int tag)
    {
        this.transport = transport;
        this.target = target;
        this.tag = tag;
        for (int slot = 0; slot < BuddyWire.SLOTS; slot++)
        {
            buffers[slot] = BuddyWire.noticeBuffer();
        }
    }

    /** @return {@code slot}'s buffer, cleared, once its previous send completed. */
    ByteBuffer buffer(final int slot)
    {
        if (sent[slot] != null)
        {
            Collectives.await(sent[slot]);
        }
        return buffers[slot].clear();
    }

    /** Sends what was written into {@code slot}'s {@link #buffer}. */
    void send(final int slot)
    {
        sent[slot] = transport.send(target, Header.of(tag), buffers[slot].flip());
    }
}
