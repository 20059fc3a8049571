package dev.spillway.rdma;

import java.util.concurrent.TimeUnit;

/** Deadlines as {@link System#nanoTime()} values. */
final class Deadlines
{
    private Deadlines()
    {
    }

    /** @return milliseconds left until {@code deadline}, 0 when it passed, for socket timeouts. */
    static int remainingMs(final long deadline)
    {
        final long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        return (int)Math.max(0, Math.min(Integer.MAX_VALUE, leftMs));
    }
}
