package dev.spillway.rdma;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The buffers of the puts and gets towards one rank since its last flush, kept reachable until a flush covers them
 * (UCX holds only their addresses). A buffer used again before the next flush is held once: a stream of small puts
 * from one buffer costs no allocation. Each put is issued before its buffer is held, so the flush that takes a buffer
 * started after every put that the buffer was held for.
 */
final class InFlightBuffers
{
    private List<ByteBuffer> held = new ArrayList<>();
    private ByteBuffer last;

    synchronized void hold(final ByteBuffer buffer)
    {
        if (buffer != last)
        {
            held.add(buffer);
            last = buffer;
        }
    }

    /** @return the buffers held so far, now the flush's to keep; holds none after. */
    synchronized List<ByteBuffer> take()
    {
        final List<ByteBuffer> taken = held;
        held = new ArrayList<>();
        last = null;
        return taken;
    }

    synchronized boolean isEmpty()
    {
        return held.isEmpty();
    }
}
