package dev.spillway.ranks;

import java.util.concurrent.atomic.AtomicLong;

/** Transfer counters of one rank; updated from the transport's threads. */
final class RankCounters
{
    final AtomicLong sends = new AtomicLong();
    final AtomicLong bytesSent = new AtomicLong();
    final AtomicLong receives = new AtomicLong();
    final AtomicLong bytesReceived = new AtomicLong();
    final AtomicLong duplicates = new AtomicLong();

    void sent(final int bytes)
    {
        sends.incrementAndGet();
        bytesSent.addAndGet(bytes);
    }

    void received(final int bytes)
    {
        receives.incrementAndGet();
        bytesReceived.addAndGet(bytes);
    }
}
