package dev.spillway;

import dev.spillway.memory.ByteUnits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ReadOnlyBufferException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each kind of bad input gets a clear error naming the culprit, and nothing else is lost. */
@Timeout(600)
class BadInputTest
{
    private static final int SIZE = 16 << 10;

    @TempDir
    Path dir;

    @Test
    void workingSetLargerThanBudgetIsRefusedAtSubmission()
    {
        try (Spillway sw = Runtimes.small(dir, 2L * SIZE, "a").build())
        {
            final Data a = sw.data("a", SIZE);
            final Data b = sw.data("b", SIZE);
            final Data c = sw.data("c", SIZE);
            final WorkingSetTooLargeException e = assertThrows(WorkingSetTooLargeException.class,
                () -> sw.task("too big").write(a, b, c).submit(ctx -> { }));
            assertTrue(e.getMessage().contains("'too big'") && e.getMessage().contains(ByteUnits.format(3 * SIZE)) &&
                e.getMessage().contains(ByteUnits.format(2 * SIZE)), e.getMessage());
        }
    }

    @Test
    void readingNeverWrittenDataIsAnError()
    {
        try (Spillway sw = Runtimes.small(dir, 4L * SIZE, "a").build())
        {
            final Data a = sw.data("never", SIZE);
            final DataNotWrittenException e = assertThrows(DataNotWrittenException.class,
                () -> sw.task("reader").read(a).submit(ctx -> { }));
            assertTrue(e.getMessage().contains("'reader'") && e.getMessage().contains("'never'"), e.getMessage());
            assertThrows(DataNotWrittenException.class, () -> sw.task("updater").readWrite(a).submit(ctx -> { }));
            sw.task("scratch user").scratch(a).submit(ctx -> { });
            assertThrows(DataNotWrittenException.class, () -> sw.task("after scratch").read(a).submit(ctx -> { }));
        }
    }

    @Test
    void writingThroughAReadBufferThrowsAndNamesTheTask()
    {
        try (Spillway sw = Runtimes.small(dir, 4L * SIZE, "a").build())
        {
            final Data a = sw.data("a", SIZE);
            sw.task("init").write(a).submit(ctx -> Runtimes.fill(ctx.buffer(a), 1));
            final byte[] before = Runtimes.copyOut(sw, a);
            final TaskHandle h = sw.task("sneaky writer").read(a).submit(ctx -> ctx.buffer(a).put(0, (byte)1));
            final TaskFailedException e = assertThrows(TaskFailedException.class, h::join);
            assertTrue(e.getMessage().contains("'sneaky writer'"), e.getMessage());
            assertInstanceOf(ReadOnlyBufferException.class, rootCause(e));
            assertArrayEquals(before, Runtimes.copyOut(sw, a), "a READ task must not change the object");
        }
    }

    @Test
    void touchingAnUndeclaredObjectIsAPrivilegeViolation()
    {
        try (Spillway sw = Runtimes.small(dir, 4L * SIZE, "a").build())
        {
            final Data a = sw.data("a", SIZE);
            final Data b = sw.data("b", SIZE);
            sw.task("init b").write(b).submit(ctx -> Runtimes.fill(ctx.buffer(b), 1));
            final TaskHandle h = sw.task("greedy").write(a).submit(ctx -> ctx.buffer(b));
            final TaskFailedException e = assertThrows(TaskFailedException.class, h::join);
            assertInstanceOf(PrivilegeViolationException.class, rootCause(e));
            assertTrue(rootCause(e).getMessage().contains("'greedy'") && rootCause(e).getMessage().contains("'b'"));
        }
    }

    @Test
    void aTaskExceptionReachesTheWaiterAndSparesIndependentTasks()
    {
        try (Spillway sw = Runtimes.small(dir, 4L * SIZE, "a,s,d").build())
        {
            final Data a = sw.data("a", SIZE);
            final Data b = sw.data("b", SIZE);
            final TaskHandle bad = sw.task("exploding init").write(a).submit(ctx ->
            {
                throw new IllegalStateException("boom");
            });
            final TaskHandle dependent = sw.task("uses a").read(a).submit(ctx -> { });
            final TaskHandle independent = sw.task("init b").write(b).submit(ctx -> Runtimes.fill(ctx.buffer(b), 3));
            final TaskFailedException e = assertThrows(TaskFailedException.class, bad::join);
            assertTrue(e.getMessage().contains("'exploding init'") && e.getMessage().contains("boom"), e.getMessage());
            final TaskFailedException d = assertThrows(TaskFailedException.class, dependent::join);
            assertTrue(d.getMessage().contains("'uses a'") && d.getMessage().contains("'exploding init'"),
                d.getMessage());
            independent.join();
            Runtimes.copyOut(sw, b);
            sw.task("rewrite a").write(a).submit(ctx -> Runtimes.fill(ctx.buffer(a), 4)).join();
            Runtimes.copyOut(sw, a);
        }
    }

    @Test
    void settingsAreFrozenOnceBuilt()
    {
        final SpillwayConfig config = Runtimes.small(dir, 4L * SIZE, "a");
        try (Spillway sw = config.build())
        {
            assertThrows(IllegalStateException.class, () -> config.workers(7));
            assertThrows(IllegalStateException.class, config::build);
            assertTrue(sw.config().workers() == 2);
        }
    }

    @Test
    void unknownPolicyLetterIsNamed()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> Spillway.builder().policy("a,x"));
        assertTrue(e.getMessage().contains("'x'"), e.getMessage());
    }

    @Test
    void duplicateTagAndDuplicateDeclarationAreRefused()
    {
        try (Spillway sw = Runtimes.small(dir, 4L * SIZE, "a").build())
        {
            final Data a = sw.data("a", SIZE);
            assertThrows(IllegalArgumentException.class, () -> sw.data("a", SIZE));
            assertThrows(IllegalArgumentException.class, () -> sw.task("twice").read(a).write(a));
        }
    }

    static Throwable rootCause(final Throwable t)
    {
        Throwable c = t;
        while (c.getCause() != null)
        {
            c = c.getCause();
        }
        return c;
    }
}
