package dev.spillway.ranks;

import java.util.concurrent.ThreadFactory;

/** Daemon threads named after the rank and their role: {@code spillway-rank-R-ROLE}. */
final class RankThreads
{
    private RankThreads()
    {
    }

    /** @return a factory of daemon threads named {@code spillway-rank-<rank>-<role>}. */
    static ThreadFactory named(final int rank, final String role)
    {
        return r ->
        {
            final Thread t = new Thread(r, "spillway-rank-" + rank + "-" + role);
            t.setDaemon(true);
            return t;
        };
    }
}
