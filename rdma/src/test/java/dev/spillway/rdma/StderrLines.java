package dev.spillway.rdma;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.fail;

/** Captures {@code System.err} line by line until closed, and lets a test wait for a line to appear. */
final class StderrLines implements AutoCloseable
{
    private final PrintStream original = System.err;
    private final List<String> lines = new ArrayList<>();
    private final ByteArrayOutputStream partial = new ByteArrayOutputStream();

    StderrLines()
    {
        System.setErr(new PrintStream(new OutputStream()
        {
            @Override
            public void write(final int b)
            {
                append(b);
            }
        }, true, StandardCharsets.UTF_8));
    }

    private synchronized void append(final int b)
    {
        if (b == '\n')
        {
            lines.add(partial.toString(StandardCharsets.UTF_8));
            partial.reset();
            notifyAll();
        }
        else
        {
            partial.write(b);
        }
    }

    /** @return the complete lines so far. */
    synchronized List<String> lines()
    {
        return List.copyOf(lines);
    }

    /**
     * Waits until {@code count} lines match.
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
                fail("waited " + safetyNet + " for " + count + " stderr lines with " + what + "; got " + lines);
            }
            wait(leftMs);
        }
    }

    @Override
    public void close()
    {
        System.setErr(original);
    }
}
