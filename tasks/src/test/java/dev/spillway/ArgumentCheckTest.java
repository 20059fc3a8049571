package dev.spillway;

import dev.spillway.memory.ByteUnits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every public call checks its arguments where it is made, with a message that names the argument. */
@Timeout(600)
class ArgumentCheckTest
{
    private static final int SIZE = 8 << 10;

    @TempDir
    Path dir;

    @Test
    void nullsAreRefusedAtTheCall()
    {
        try (Spillway sw = Runtimes.small(dir, 8L * SIZE, "a").build())
        {
            final Data a = sw.data("a", SIZE);
            assertMessage(assertThrows(NullPointerException.class, () -> sw.task("t").write(a).submit(null)),
                "'t': body is null");
            assertMessage(assertThrows(NullPointerException.class, () -> sw.task("t").access(a, null)),
                "privilege of 'a' is null");
            assertMessage(assertThrows(NullPointerException.class, () -> sw.task("t").access(null, Privilege.READ)),
                "'t': data is null");
            assertMessage(assertThrows(NullPointerException.class, () -> sw.data(null, SIZE)), "tag is null");
            assertMessage(assertThrows(NullPointerException.class, () -> sw.close(null)), "close mode is null");
            assertMessage(assertThrows(NullPointerException.class, () -> sw.awaitAll(null)), "timeout is null");
            assertMessage(assertThrows(NullPointerException.class, () -> sw.discard(null)), "data is null");
            assertMessage(assertThrows(NullPointerException.class, () -> sw.acquire(null)), "data is null");
        }
    }

    @Test
    void declaringAfterCloseIsRefused()
    {
        final Spillway sw = Runtimes.small(dir, 8L * SIZE, "a").build();
        sw.close();
        assertMessage(assertThrows(IllegalStateException.class, () -> sw.data("late", SIZE)),
            "'late' declared after close()");
    }

    @Test
    void sizesThatOverflowPageRoundingAreRefused()
    {
        try (Spillway sw = Runtimes.small(dir, 1L << 30, "a").build())
        {
            for (final int size : new int[] {2147479553, Integer.MAX_VALUE})
            {
                assertMessage(assertThrows(IllegalArgumentException.class, () -> sw.data("huge", size)),
                    "more than the largest object");
            }
            final Data largest = sw.data("largest", 2147479552);
            assertEquals(2147479552L, sw.dramCharge(largest.size()));
            assertThrows(WorkingSetTooLargeException.class, () -> sw.task("w").write(largest).submit(ctx -> { }));
            final Data small = sw.data("small", 10);
            sw.task("still works").write(small).submit(ctx -> { }).join();
        }
    }

    @Test
    void aBudgetOfTheObjectsChargesFitsWhereTheirSizesDoNot()
    {
        final int odd = 5000;
        final long sizes = 2L * odd;
        try (Spillway probe = Runtimes.small(dir.resolve("probe"), 1L << 20, "a").build())
        {
            final long charges = 2 * probe.dramCharge(odd);
            assertTrue(charges > sizes, "charges are page-rounded");
            try (Spillway tight = Runtimes.small(dir.resolve("tight"), sizes, "a").build())
            {
                final Data a = tight.data("a", odd);
                final Data b = tight.data("b", odd);
                final WorkingSetTooLargeException e = assertThrows(WorkingSetTooLargeException.class,
                    () -> tight.task("both").write(a, b).submit(ctx -> { }));
                assertMessage(e, "raise the budget to at least " + ByteUnits.atLeast(charges));
                assertMessage(e, "Spillway.dramCharge");
            }
            try (Spillway fits = Runtimes.small(dir.resolve("fits"), charges, "a").build())
            {
                final Data a = fits.data("a", odd);
                final Data b = fits.data("b", odd);
                fits.task("both").write(a, b).submit(ctx -> { }).join();
            }
        }
    }

    private static void assertMessage(final Throwable e, final String part)
    {
        assertTrue(e.getMessage() != null && e.getMessage().contains(part),
            "expected a message containing \"" + part + "\", got: " + e.getMessage());
    }
}
