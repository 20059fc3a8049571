package dev.spillway.resilience.buddy;

import dev.spillway.rdma.Collectives;
import dev.spillway.rdma.Header;
import dev.spillway.rdma.Transport;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** Two-sided messages of one tag to one rank, with up to {@link #IN_FLIGHT} on the wire at once. */
final class MessageOutlet implements ChunkOutlet
{
    static final int IN_FLIGHT = 4;

    private final Transport transport;
    private final int target;
    private final int tag;
    private final ByteBuffer[] buffers = new ByteBuffer[IN_FLIGHT];
    private final ArrayDeque<CompletableFuture<Void>> sends = new ArrayDeque<>();
    private int next;

    MessageOutlet(final Transport transport, final int target, final int tag)
    {
        this.transport = transport;
        this.target = target;
        this.tag = tag;
    }

    @Override
    public ByteBuffer free()
    {
        if (sends.size() == IN_FLIGHT)
        {
            Collectives.await(sends.poll());
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
    public void drain()
    {
        while (!sends.isEmpty())
        {
            Collectives.await(sends.poll());
        }
    }

    @Override
    public void abandon()
    {
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
