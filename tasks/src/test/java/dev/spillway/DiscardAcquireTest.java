package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** discard drops dead data without writing it back; acquire reads a result out without a copy task. */
@Timeout(120)
class DiscardAcquireTest
{
    private static final int SIZE = 64 << 10;

    @TempDir
    Path dir;

    @Test
    void discardedDataIsNeverWrittenBack()
    {
        assertEquals(0, bytesWrittenByAStream(true), "dead data must not be written back");
    }

    @Test
    void withoutDiscardTheSameStreamSpills()
    {
        assertTrue(bytesWrittenByAStream(false) > 0, "the control must spill, or the test above shows nothing");
    }

    /** Eight produce-use pairs under a budget of two objects, each pair done before the next starts. */
    private long bytesWrittenByAStream(final boolean discard)
    {
        try (Spillway sw = Runtimes.small(dir, 2L * SIZE, "a").cleanReserve(0).build())
        {
            for (int i = 0; i < 8; i++)
            {
                final Data d = sw.data("tmp " + i, SIZE);
                final long seed = i;
                sw.task("make " + i).write(d).submit(ctx -> Runtimes.fill(ctx.buffer(d), seed));
                final TaskHandle used = sw.task("use " + i).read(d).submit(ctx -> { });
                (discard ? sw.discard(d) : used).join();
            }
            sw.awaitAll();
            return sw.stats().nvmBytesWritten();
        }
    }

    @Test
    void aDiscardedObjectIsUnreadableUntilWrittenAgain()
    {
        try (Spillway sw = Runtimes.small(dir, 2L * SIZE, "a").build())
        {
            final Data a = sw.data("a", SIZE);
            final Data b = sw.data("b", SIZE);
            final Data c = sw.data("c", SIZE);
            sw.task("fill a").write(a).submit(ctx -> Runtimes.fill(ctx.buffer(a), 1));
            sw.task("fill b").write(b).submit(ctx -> Runtimes.fill(ctx.buffer(b), 2));
            sw.task("fill c").write(c).submit(ctx -> Runtimes.fill(ctx.buffer(c), 3));
            sw.discard(a);
            final DataNotWrittenException e = assertThrows(DataNotWrittenException.class,
                () -> sw.task("late reader").read(a).submit(ctx -> { }));
            assertTrue(e.getMessage().contains("'a'"), e.getMessage());
            sw.task("refill a").write(a).submit(ctx -> Runtimes.fill(ctx.buffer(a), 4));
            final byte[] expected = new byte[SIZE];
            Runtimes.fill(ByteBuffer.wrap(expected).order(java.nio.ByteOrder.nativeOrder()), 4);
            assertArrayEquals(expected, Runtimes.copyOut(sw, a));
            final byte[] expectedB = new byte[SIZE];
            Runtimes.fill(ByteBuffer.wrap(expectedB).order(java.nio.ByteOrder.nativeOrder()), 2);
            assertArrayEquals(expectedB, Runtimes.copyOut(sw, b), "other objects keep their contents");
            sw.awaitAll();
        }
    }

    @Test
    void acquireReadsTheLatestContentsAndHoldsBackLaterWriters() throws Exception
    {
        try (Spillway sw = Runtimes.small(dir, 3L * SIZE, "a").build())
        {
            final Data a = sw.data("a", SIZE);
            final Data b = sw.data("b", SIZE);
            final Data c = sw.data("c", SIZE);
            sw.task("fill a").write(a).submit(ctx -> ctx.buffer(a).putLong(0, 1));
            sw.task("bump a").readWrite(a).submit(ctx -> ctx.buffer(a).putLong(0, ctx.buffer(a).getLong(0) + 1));
            sw.task("fill b").write(b).submit(ctx -> Runtimes.fill(ctx.buffer(b), 2));
            sw.task("fill c").write(c).submit(ctx -> Runtimes.fill(ctx.buffer(c), 3));
            final TaskHandle later;
            try (Acquired view = sw.acquire(a))
            {
                assertEquals(2, view.buffer().getLong(0), "the acquisition sees every earlier writer");
                assertThrows(ReadOnlyBufferException.class, () -> view.buffer().putLong(0, 9));
                later = sw.task("bump again").readWrite(a).submit(ctx ->
                    ctx.buffer(a).putLong(0, ctx.buffer(a).getLong(0) + 1));
                sw.task("unrelated").readWrite(b).submit(ctx -> { }).join();
                assertFalse(later.isDone(), "a later writer waits for the release: " + later.waitReason());
            }
            later.join();
            try (Acquired view = sw.acquire(a))
            {
                assertEquals(3, view.buffer().getLong(0));
                view.close();
                assertThrows(IllegalStateException.class, view::buffer);
            }
            sw.awaitAll();
        }
    }

    @Test
    void acquiringTheOutputOfAFailedTaskThrows()
    {
        try (Spillway sw = Runtimes.small(dir, 2L * SIZE, "a").build())
        {
            final Data a = sw.data("a", SIZE);
            sw.task("broken fill").write(a).submit(ctx -> { throw new IllegalStateException("no"); });
            final TaskFailedException e = assertThrows(TaskFailedException.class, () -> sw.acquire(a));
            assertTrue(e.getMessage().contains("'broken fill'"), e.getMessage());
            assertThrows(TaskFailedException.class, sw::awaitAll);
        }
    }
}
