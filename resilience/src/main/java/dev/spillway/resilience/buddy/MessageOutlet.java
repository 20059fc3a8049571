package dev.spillway.resilience.buddy;

import dev.spillway.rdma.Header;
import dev.spillway.rdma.Transport;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * Two-sided messages of one tag to one rank, with up to {@link #IN_FLIGHT} on the wire at once; a wait for a send
 * ends once the {@link KeeperWatch} hears that the buddy stopped taking them.
 */
final class MessageOutlet implements ChunkOutlet
{
    static final int IN_FLIGHT = 4;

    private final Transport transport;
    private final int target;
    private final int tag;
    private final KeeperWatch watch;
    private final ByteBuffer[] buffers = new ByteBuffer[IN_FLIGHT];
    private final ArrayDeque<CompletableFuture<Void>> sends = new ArrayDeque<>();
    private int next;

    MessageOutlet(final Transport transport, final int target, final int tag, final KeeperWatch watch)
    {
        this.transport = transport;
        this.target = target;
        this.tag = tag;
        this.watch = watch;
    }

    @Override
    public ByteBuffer free() throws InterruptedException
    {
        if (sends.size() == IN_FLIGHT)
        {
            awaitOldest();
        }
        final int i = next++ % IN_FLIGHT;
        if (buffers[i] == null)
        {
            buffers[i] = BuddyWire.messageBuffer();
        }
        return buffers[i].clear();
    }

    @Override
    public void send(final ByteBuffer message)
    {
        sends.add(transport.send(target, Header.of(tag), message));
    }

    @Override
    public void drain() throws InterruptedException
    {
        while (!sends.isEmpty())
        {
            awaitOldest();
        }
    }

    /** A send that failed, or that the buddy will never take, stays for {@link #abandon} to wait out. */
    private void awaitOldest() throws InterruptedException
    {
        watch.await(sends.peek());
        sends.poll();
    }

    @Override
    public void abandon()
    {
        if (watch.stopped())
        {
            // The keeper takes none of them, and no later message goes out (every copy now fails as it starts).
            sends.clear();
            return;
        }
        while (!sends.isEmpty())
        {
            try
            {
                sends.peek().get();
            }
            catch (final ExecutionException e)
            {
                // Sent or not, the buffer is free again.
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                return;
            }
            sends.poll();
        }
    }
}
