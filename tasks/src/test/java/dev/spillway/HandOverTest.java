package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A successor that uses only objects its predecessor holds is handed to the predecessor's worker, which runs it next
 * without a round trip through the IO thread. The chain is submitted while admission is paused, so when the first
 * task is made ready its successors wait for nothing else and are handed over: deterministically, at least the
 * {@value #DEPTH} the engine hands over ahead of a ready task.
 */
@Timeout(600)
class HandOverTest
{
    /** {@code HandOvers.DEPTH}. */
    private static final int DEPTH = 8;

    @TempDir
    Path dir;

    @Test
    void aChainOnOneObjectRunsInOrderOnItsWorkersWithHandOvers() throws Exception
    {
        final int links = 5000;
        try (Spillway sw = Runtimes.small(dir, 1 << 20, "a,s,d").build())
        {
            final Data d = sw.data("counter", 64);
            sw.pause();
            sw.task("init").write(d).submit(ctx -> ctx.buffer(d).putLong(0, 0));
            for (int i = 1; i <= links; i++)
            {
                final long expected = i - 1;
                sw.task("inc " + i).readWrite(d).submit(ctx ->
                {
                    final long seen = ctx.buffer(d).getLong(0);
                    if (seen != expected)
                    {
                        throw new AssertionError("link " + (expected + 1) + " saw " + seen);
                    }
                    ctx.buffer(d).putLong(0, seen + 1);
                });
            }
            sw.resume();
            sw.awaitAll();
            assertEquals(links, ByteBuffer.wrap(Runtimes.copyOut(sw, d)).order(ByteOrder.nativeOrder())
                .getLong(0));
            assertTrue(sw.stats().handOvers() >= DEPTH, "handed over: " + sw.stats());
            assertEquals(0, sw.stats().tasksFailed(), sw.stats().toString());
        }
    }

    @Test
    void aHandedOverSuccessorOfAFailedTaskDoesNotRunAndNamesIt() throws Exception
    {
        final AtomicInteger ran = new AtomicInteger();
        try (Spillway sw = Runtimes.small(dir, 1 << 20, "a,s,d").build())
        {
            final Data d = sw.data("x", 64);
            sw.pause();
            sw.task("init").write(d).submit(ctx -> ctx.buffer(d).putLong(0, 1));
            final TaskHandle bad = sw.task("bad").readWrite(d).submit(ctx ->
            {
                throw new IllegalStateException("boom");
            });
            final TaskHandle after = sw.task("after").readWrite(d).submit(ctx -> ran.incrementAndGet());
            sw.resume();
            final TaskFailedException e = assertThrows(TaskFailedException.class, () -> after.join(Await.LIMIT));
            assertTrue(e.getMessage().contains("task 'after' not run: its input 'x' was to be produced by failed " +
                "task 'bad'"), e.getMessage());
            assertThrows(TaskFailedException.class, bad::join);
            assertEquals(0, ran.get(), "the successor of a failed task never runs");
            assertTrue(sw.stats().handOvers() >= 2, "'bad' and 'after' were handed over: " + sw.stats());
        }
    }

    @Test
    void cancelTakesBackWhatWasHandedOverAndNotStarted() throws Exception
    {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger ran = new AtomicInteger();
        final Spillway sw = Runtimes.small(dir, 1 << 20, "a,s,d").build();
        final Data d = sw.data("x", 64);
        sw.pause();
        final TaskHandle first = sw.task("slow").write(d).submit(ctx ->
        {
            started.countDown();
            release.await();
        });
        final List<TaskHandle> rest = new ArrayList<>();
        for (int i = 0; i < DEPTH; i++)
        {
            rest.add(sw.task("later " + i).readWrite(d).submit(ctx -> ran.incrementAndGet()));
        }
        sw.resume();
        started.await();
        Await.until("every successor of 'slow' handed over", () -> sw.stats().handOvers() == DEPTH, sw);
        assertTrue(sw.describeWaits(DEPTH + 1).contains("ready, to run next on the worker that runs 'slow'"),
            sw.describeWaits(DEPTH + 1));
        final Thread closer = new Thread(() -> sw.close(CloseMode.CANCEL));
        closer.start();
        for (final TaskHandle h : rest)
        {
            final TaskFailedException e = assertThrows(TaskFailedException.class, () -> h.join(Await.LIMIT),
                "cancelled while 'slow' still runs");
            assertTrue(e.getMessage().contains("cancelled"), e.getMessage());
        }
        release.countDown();
        closer.join();
        first.join();
        assertEquals(0, ran.get(), "no handed-over task starts once cancelled");
    }
}
