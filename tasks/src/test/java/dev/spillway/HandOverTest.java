package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A successor that uses only objects its predecessor holds is handed to the predecessor's worker, which runs it next
 * without a round trip through the IO thread. Each chain here is staged while admission is paused or while its first
 * task is held running, so its successors wait for nothing else and are handed over deterministically: at least the
 * {@value #DEPTH} the engine hands over ahead of a ready task. {@code stats().handOvers()} counts what the workers
 * claimed and ran.
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
            assertEquals(1, sw.stats().handOvers(), "'bad' was claimed, 'after' taken back: " + sw.stats());
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
        Await.until("the last successor of 'slow' handed over", () -> sw.describeWaits(DEPTH + 1)
            .contains("ready, to run next on the worker that runs 'later " + (DEPTH - 2) + "'"), sw);
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
        assertEquals(0, sw.stats().handOvers(), sw.stats().toString());
    }

    @Test
    void successorsSubmittedWhileTheirPredecessorRunsRunNextOnItsWorker() throws Exception
    {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final List<String> threads = Collections.synchronizedList(new ArrayList<>());
        try (Spillway sw = Runtimes.small(dir, 1 << 20, "a,s,d").build())
        {
            final Data d = sw.data("x", 64);
            sw.task("slow").write(d).submit(ctx ->
            {
                threads.add(Thread.currentThread().getName());
                started.countDown();
                release.await();
            });
            started.await();
            for (int i = 0; i < DEPTH; i++)
            {
                sw.task("later " + i).readWrite(d).submit(ctx -> threads.add(Thread.currentThread().getName()));
            }
            Await.until("the last successor handed over", () -> sw.describeWaits(DEPTH + 1)
                .contains("ready, to run next on the worker that runs 'later " + (DEPTH - 2) + "'"), sw);
            release.countDown();
            sw.awaitAll();
            assertEquals(DEPTH, sw.stats().handOvers(), sw.stats().toString());
            assertEquals(1, threads.stream().distinct().count(), "all ran on the worker of 'slow': " + threads);
        }
    }

    @Test
    void strictArrivalOrderAndTheSwitchTurnHandOversOff() throws Exception
    {
        for (final SpillwayConfig config : List.of(Runtimes.small(dir, 1 << 20, "f,s,d"),
            Runtimes.small(dir, 1 << 20, "a,s,d").handOvers(false)))
        {
            try (Spillway sw = config.build())
            {
                final Data d = sw.data("x", 64);
                sw.pause();
                sw.task("init").write(d).submit(ctx -> ctx.buffer(d).putLong(0, 0));
                for (int i = 0; i < 100; i++)
                {
                    sw.task("inc " + i).readWrite(d).submit(ctx -> ctx.buffer(d).putLong(0,
                        ctx.buffer(d).getLong(0) + 1));
                }
                sw.resume();
                sw.awaitAll();
                assertEquals(100, ByteBuffer.wrap(Runtimes.copyOut(sw, d)).order(ByteOrder.nativeOrder()).getLong(0));
                assertEquals(0, sw.stats().handOvers(), sw.stats().toString());
            }
        }
    }
}
