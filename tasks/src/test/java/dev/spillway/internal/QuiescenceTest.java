package dev.spillway.internal;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * User tasks are counted under the submit lock while the IO thread counts checkpoint saves. A count lost between the
 * two let {@code awaitAll} return one task early, so a run's checksum or verification read a result not yet made.
 */
class QuiescenceTest
{
    private static final int EACH = 20_000_000;

    @Test
    void userAndInternalSubmissionsAtOnceAreAllCounted() throws Exception
    {
        final Quiescence q = new Quiescence(() -> 0);
        final CyclicBarrier start = new CyclicBarrier(2);
        final Thread io = new Thread(() ->
        {
            await(start);
            for (int i = 0; i < EACH; i++)
            {
                q.internalSubmitted();
            }
        }, "io");
        io.start();
        await(start);
        for (int i = 0; i < EACH; i++)
        {
            q.submitted();
        }
        io.join(TimeUnit.MINUTES.toMillis(5));
        assertEquals(2L * EACH, q.incomplete(), "tasks counted by the submitter and the IO thread at once");
    }

    private static void await(final CyclicBarrier barrier)
    {
        try
        {
            barrier.await();
        }
        catch (final Exception e)
        {
            throw new IllegalStateException(e);
        }
    }
}
