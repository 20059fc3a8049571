package dev.spillway;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for an event the test can observe (a counter, a wait reason, a thread state) instead of sleeping for a
 * guessed time. The limit is only a safety net, sized for a machine ten times slower than a quiet laptop and kept
 * under the test classes' {@code @Timeout(600)}, so that a hang reports what it waited for, not JUnit's timeout.
 */
public final class Await
{
    static final Duration LIMIT = Duration.ofSeconds(45);

    private Await()
    {
    }

    /** Polls {@code condition} until it holds; past {@link #LIMIT} fails naming {@code what} and {@code state}. */
    public static void until(final String what, final BooleanSupplier condition, final Supplier<String> state)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + LIMIT.toNanos();
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("waited " + LIMIT.toSeconds() + " s for " + what + "; " + state.get());
            }
            Thread.sleep(1);
        }
    }

    /** As {@link #until(String, BooleanSupplier, Supplier)}, reporting the runtime's counters and waits. */
    public static void until(final String what, final BooleanSupplier condition, final Spillway sw)
        throws InterruptedException
    {
        until(what, condition, () -> sw.stats() + "\nwaits:\n" + sw.describeWaits(20));
    }
}
