package dev.spillway.rdma;

import java.lang.System.Logger.Level;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The coordinator's log of refused connections, rate-limited so that a flood cannot fill the disk: in each
 * {@link #INTERVAL} the first {@link #VERBATIM_LINES} refusals get a line each, naming the peer and the cause; the
 * rest are counted by cause and summed up in one line when the interval is over (at the next refusal) or at
 * {@link #flush()}. Every line names its cause; none is ever {@code null}.
 */
final class RejectionLog
{
    private static final System.Logger LOG = System.getLogger(RejectionLog.class.getName());
    /** Refusals logged one by one in each interval. */
    static final int VERBATIM_LINES = 5;
    /** Length of an interval. */
    static final Duration INTERVAL = Duration.ofSeconds(10);

    /** Why a connection was refused, as the summary counts it. */
    enum Cause
    {
        /** Hung up before or during its handshake (a port scan, a health check, a crashed client). */
        CLOSED("closed before completing the handshake"),
        /** Did not complete its handshake within the per-connection deadline. */
        TIMED_OUT("timed out in the handshake"),
        /** Failed the HMAC proof, or claimed a rank, size or incarnation the job cannot have. */
        NOT_AUTHENTICATED("failed authentication"),
        /**
         * Authenticated, but not admitted: a rank that joined already, is alive, or claims an incarnation not higher
         * than its lost one (or, at the start, not the coordinator's).
         */
        NOT_ADMITTED("not admitted"),
        /** Arrived while the cap of concurrent unauthenticated connections was reached; closed at once. */
        OVER_CAP("over the cap of pending handshakes"),
        /** Any other failure of the connection, such as a reset or a malformed address blob. */
        FAILED("failed otherwise");

        private final String summary;

        Cause(final String summary)
        {
            this.summary = summary;
        }
    }

    private final String who;
    private final LongSupplier nanoClock;
    private final Consumer<String> sink;
    private final Map<Cause, Long> suppressed = new EnumMap<>(Cause.class);
    private long intervalStart;
    private int logged;

    /**
     * @param who names the logging side, such as {@code coordinator (rank 0)}.
     * @param nanoClock {@link System#nanoTime} or a test's clock.
     * @param sink takes each line.
     */
    RejectionLog(final String who, final LongSupplier nanoClock, final Consumer<String> sink)
    {
        this.who = who;
        this.nanoClock = nanoClock;
        this.sink = sink;
        this.intervalStart = nanoClock.getAsLong();
    }

    /** @return a log of {@code who}'s refusals to this class's {@link System.Logger}, at WARNING. */
    static RejectionLog toLogger(final String who)
    {
        return new RejectionLog(who, System::nanoTime, RejectionLog::warn);
    }

    private static void warn(final String line)
    {
        LOG.log(Level.WARNING, line);
    }

    /**
     * Logs or counts one refused connection.
     *
     * @param from the peer's address.
     * @param cause the kind of refusal.
     * @param detail what exactly happened, for the verbatim line.
     */
    synchronized void rejected(final SocketAddress from, final Cause cause, final String detail)
    {
        final long now = nanoClock.getAsLong();
        if (now - intervalStart >= INTERVAL.toNanos())
        {
            flush();
            intervalStart = now;
            logged = 0;
        }
        if (logged < VERBATIM_LINES)
        {
            logged++;
            sink.accept("spillway-rdma: " + who + " rejected connection from " + from + ": " +
                (detail == null || detail.isBlank() ? cause.summary : detail));
        }
        else
        {
            suppressed.merge(cause, 1L, Long::sum);
        }
    }

    /** Writes the summary of the refusals counted but not logged so far, if any. */
    synchronized void flush()
    {
        if (suppressed.isEmpty())
        {
            return;
        }
        long total = 0;
        final StringJoiner causes = new StringJoiner(", ");
        for (final Map.Entry<Cause, Long> e : suppressed.entrySet())
        {
            total += e.getValue();
            causes.add(e.getValue() + " " + e.getKey().summary);
        }
        final long seconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(nanoClock.getAsLong() - intervalStart));
        sink.accept("spillway-rdma: " + who + " rejected " + total + " more connection" + (total == 1 ? "" : "s") +
            " in the last " + seconds + " s: " + causes);
        suppressed.clear();
    }

    /** Writes how many connections were closed still in their handshake when the coordinator closed, if any. */
    synchronized void abandoned(final int connections)
    {
        if (connections > 0)
        {
            sink.accept("spillway-rdma: " + who + " closed " + connections + " connection" +
                (connections == 1 ? "" : "s") + " still in the handshake when it stopped listening");
        }
    }
}
