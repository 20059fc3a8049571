package dev.spillway.rdma;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Captures the messages the rdma package logs ({@link System.Logger}, backed by java.util.logging) until closed, and
 * lets a test wait for a message to appear.
 */
final class LogLines implements AutoCloseable
{
    /** Held: java.util.logging keeps loggers weakly, and a collected logger would lose the handler. */
    private final Logger logger = Logger.getLogger(UcxTransport.class.getPackageName());
    private final List<String> lines = new ArrayList<>();
    private final Handler handler = new Handler()
    {
        private final SimpleFormatter formatter = new SimpleFormatter();

        @Override
        public void publish(final LogRecord record)
        {
            if (isLoggable(record))
            {
                append(formatter.formatMessage(record));
            }
        }

        @Override
        public void flush()
        {
        }

        @Override
        public void close()
        {
        }
    };

    LogLines()
    {
        handler.setLevel(Level.ALL);
        logger.addHandler(handler);
    }

    private synchronized void append(final String line)
    {
        lines.add(line);
        notifyAll();
    }

    /** @return the messages so far. */
    synchronized List<String> lines()
    {
        return List.copyOf(lines);
    }

    /**
     * Waits until {@code count} messages match.
     *
     * @param safetyNet fails the test after this long, naming what it waited for.
     */
    synchronized void await(final String what, final Predicate<String> matching, final int count,
        final Duration safetyNet) throws InterruptedException
    {
        final long deadline = System.nanoTime() + safetyNet.toNanos();
        while (lines.stream().filter(matching).count() < count)
        {
            final long leftMs = (deadline - System.nanoTime()) / 1_000_000;
            if (leftMs <= 0)
            {
                fail("waited " + safetyNet + " for " + count + " log lines with " + what + "; got " + lines);
            }
            wait(leftMs);
        }
    }

    @Override
    public void close()
    {
        logger.removeHandler(handler);
    }
}
