package dev.spillway.checkpoint;

import dev.spillway.Await;
import dev.spillway.Data;
import dev.spillway.CloseMode;
import dev.spillway.Spillway;
import dev.spillway.SpillwayConfig;
import dev.spillway.io.StoreKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiPredicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The runtime's side of checkpoints: cuts, save tasks, skipping restored tasks, with a heap store. */
class CheckpointEngineTest
{
    private static final int OBJECTS = 12;
    private static final int SIZE = 64 << 10;
    private static final int TASKS = 240;
    /** Safety net for the first commit, which takes milliseconds on a quiet machine. */
    private static final Duration COMMIT_LIMIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    /** @return a policy that cuts every {@code n} finished tasks. */
    static CheckpointPolicy everyTasks(final long n)
    {
        return policy((tasksSinceCut, nanosSinceCut) -> tasksSinceCut >= n, "every " + n + " tasks");
    }

    /** @return a policy that cuts when {@code due} says so, given tasks finished and nanoseconds since the last cut. */
    static CheckpointPolicy policy(final BiPredicate<Long, Long> due, final String describe)
    {
        return new CheckpointPolicy()
        {
            @Override
            public boolean due(final long tasksSinceCut, final long nanosSinceCut)
            {
                return due.test(tasksSinceCut, nanosSinceCut);
            }

            @Override
            public void committed(final CheckpointCost cost)
            {
            }

            @Override
            public String describe()
            {
                return describe;
            }
        };
    }

    private SpillwayConfig config(final int workers, final long budget)
    {
        return Spillway.builder().storeDir(dir).store(StoreKind.DIRECT).dramBudget(budget).workers(workers)
            .storeSizing(256, SIZE);
    }

    private static long program(final Spillway sw)
    {
        return program(sw, -1, null);
    }

    /**
     * Runs the program: each task updates one object from itself and another, so every result depends on the whole
     * history. Task {@code failAt} throws (a crash stand-in) once {@code store} holds a committed generation, however
     * slow the machine; returns the final checksum, or 0 if it failed.
     */
    private static long program(final Spillway sw, final int failAt, final MemoryCheckpointStore store)
    {
        final Data[] d = new Data[OBJECTS];
        for (int i = 0; i < OBJECTS; i++)
        {
            d[i] = sw.data("x" + i, SIZE);
            final int seed = i;
            sw.task("init " + i).write(d[i]).submit(ctx -> fill(ctx.buffer(d[seed]), seed));
        }
        for (int k = 0; k < TASKS; k++)
        {
            final int out = k % OBJECTS;
            final int in = (k * 7 + 3) % OBJECTS == out ? (out + 1) % OBJECTS : (k * 7 + 3) % OBJECTS;
            final int step = k;
            sw.task("step " + k).readWrite(d[out]).read(d[in]).submit(ctx ->
            {
                if (step == failAt)
                {
                    if (!store.awaitGeneration(COMMIT_LIMIT))
                    {
                        final String why = "no checkpoint generation committed in " + COMMIT_LIMIT.toSeconds() +
                            " s; waits:\n" + sw.describeWaits(20);
                        System.err.println(why);
                        throw new IllegalStateException(why);
                    }
                    throw new IllegalStateException("injected failure at step " + step);
                }
                final ByteBuffer o = ctx.buffer(d[out]);
                final ByteBuffer r = ctx.buffer(d[in]);
                for (int j = 0; j + 8 <= SIZE; j += 8)
                {
                    o.putLong(j, o.getLong(j) * 31 + r.getLong(j) + step);
                }
            });
        }
        final AtomicLong sum = new AtomicLong();
        for (int i = 0; i < OBJECTS; i++)
        {
            final Data x = d[i];
            sw.task("sum " + i).read(x).submit(ctx ->
            {
                final ByteBuffer b = ctx.buffer(x);
                long s = 0;
                for (int j = 0; j + 8 <= SIZE; j += 8)
                {
                    s = s * 1_000_003 + b.getLong(j);
                }
                synchronized (sum)
                {
                    sum.set(sum.get() * 7 + s);
                }
            }).join();
        }
        return sum.get();
    }

    /** @return how many tasks before {@code frontier} write {@code xi}: its init (task #i) and its steps. */
    private static long writesBefore(final int i, final long frontier)
    {
        long writes = i < frontier ? 1 : 0;
        for (int k = i; k < TASKS && OBJECTS + k < frontier; k += OBJECTS)
        {
            writes++;
        }
        return writes;
    }

    private static void fill(final ByteBuffer b, final long seed)
    {
        for (int j = 0; j + 8 <= b.capacity() && j + 8 <= SIZE; j += 8)
        {
            b.putLong(j, seed * 1_000_000_007L + j);
        }
    }

    private long golden()
    {
        try (Spillway sw = config(2, 1 << 20).build())
        {
            return program(sw);
        }
    }

    @Test
    void checkpointsDoNotChangeTheResult()
    {
        final long golden = golden();
        final MemoryCheckpointStore store = new MemoryCheckpointStore();
        final CheckpointReport report;
        final long result;
        try (Spillway sw = config(2, 256 << 10).checkpoints(store, everyTasks(20)).build())
        {
            result = program(sw);
            report = sw.checkpointReport();
        }
        assertEquals(golden, result);
        assertTrue(report.committed() >= 2, report.toString());
        assertTrue(report.objectsSaved() > 0 && report.bytesWritten() > 0, report.toString());
        assertEquals(0, report.abandoned(), report.toString());
    }

    /**
     * An object captured by a generation that is then abandoned is saved again by the next one: before, the capture
     * reset its count of writes since saved, so a generation after the abandoned one left it out.
     */
    @Test
    void anAbandonedGenerationsCapturesAreSavedAgain()
    {
        final MemoryCheckpointStore store = new MemoryCheckpointStore();
        store.failCommits = 1;
        final CheckpointReport report;
        try (Spillway sw = config(2, 1 << 20).checkpoints(store, everyTasks(20)).build())
        {
            final Data still = sw.data("still", SIZE);
            final Data busy = sw.data("busy", SIZE);
            sw.task("write still").write(still).submit(ctx -> fill(ctx.buffer(still), 1));
            sw.task("write busy").write(busy).submit(ctx -> fill(ctx.buffer(busy), 2));
            for (int k = 0; k < 200; k++)
            {
                final long step = k;
                sw.task("update busy " + k).readWrite(busy).submit(ctx -> ctx.buffer(busy).putLong(0, step));
            }
            sw.awaitAll();
            report = sw.checkpointReport();
        }
        assertTrue(report.abandoned() >= 1 && store.generations() >= 1, report.toString());
        for (final Cut cut : store.cuts())
        {
            assertTrue(store.tags(cut).contains("still"), "generation " + cut.generation() + " holds 'still' (" +
                store.tags(cut) + "); " + report);
        }
    }

    @Test
    void aFailedRunResumesFromItsLastCutWithFewerWorkersAndLessDram()
    {
        final long golden = golden();
        final MemoryCheckpointStore store = new MemoryCheckpointStore();
        try (Spillway sw = config(2, 512 << 10).checkpoints(store, everyTasks(10)).closeMode(CloseMode.CANCEL).build())
        {
            assertEquals(0, program(sw, 170, store));
        }
        catch (final RuntimeException expected)
        {
            assertTrue(expected.getMessage().contains("step 170") || expected.getMessage().contains("sum"),
                expected.getMessage());
        }
        assertTrue(store.generations() >= 1, "no generation committed before the failure (see stderr)");
        final CheckpointReport report;
        final long result;
        try (Spillway sw = config(1, 256 << 10).checkpoints(store, everyTasks(25)).build())
        {
            result = program(sw);
            report = sw.checkpointReport();
        }
        assertEquals(golden, result);
        assertTrue(report.restoredGeneration() >= 0, report.toString());
        assertTrue(report.restoredTasks() > 0 && report.restoredTasks() <= 170 + OBJECTS, report.toString());
        final List<Cut> cuts = store.cuts();
        for (int i = 0; i < OBJECTS; i++)
        {
            final List<Long> versions = store.versions("x" + i);
            for (int g = 0; g < cuts.size(); g++)
            {
                assertEquals(writesBefore(i, cuts.get(g).frontier()), versions.get(g), "x" + i + "'s version in " +
                    cuts.get(g) + " (a restored object resumes at its checkpoint's version): " + versions);
            }
        }
        try (Spillway sw = config(2, 256 << 10).checkpoints(store, everyTasks(25)).build())
        {
            assertEquals(-1, sw.checkpointReport().restoredGeneration(), "a finished run is not resumed");
            assertEquals(golden, program(sw));
        }
    }

    /**
     * A semi-blocking checkpoint's saves that must fetch their object have a lane of their own: a running task that
     * fills the admission window does not hold them back. Before, they queued in the window like compute tasks.
     */
    @Test
    void savesThatMustFetchDoNotWaitForTheAdmissionWindow() throws Exception
    {
        final AtomicBoolean due = new AtomicBoolean();
        final MemoryCheckpointStore store = new MemoryCheckpointStore();
        final CountDownLatch running = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final CheckpointPolicy once = policy((tasks, nanos) -> due.getAndSet(false), "once, when the test says");
        try (Spillway sw = config(1, 3L * SIZE).admissionWindow(1).cleanReserve(0).checkpoints(store, once).build())
        {
            try
            {
                for (int i = 0; i < 5; i++)
                {
                    final Data x = sw.data("x" + i, SIZE);
                    final int seed = i;
                    sw.task("write x" + i).write(x).submit(ctx -> fill(ctx.buffer(x), seed)).join();
                }
                final Data a = sw.data("a", SIZE);
                sw.task("holds a").write(a).submit(ctx ->
                {
                    running.countDown();
                    release.await();
                });
                running.await();
                assertTrue(sw.stats().nvmBytesWritten() > 0, "some x were evicted: " + sw.stats());
                due.set(true);
                Await.until("every save but a's written while 'holds a' fills the window", () -> sw.describeWaits(20)
                    .contains("waits for 1 save(s) to be written and 1 task(s) before its cut to finish"), sw);
            }
            finally
            {
                release.countDown();
            }
            sw.awaitAll();
            assertEquals(1, sw.checkpointReport().committed(), sw.checkpointReport().toString());
        }
        assertEquals(Set.of("x0", "x1", "x2", "x3", "x4", "a"), store.tags(store.cuts().get(0)));
    }

    @Test
    void aDifferentProgramIsRefused()
    {
        final MemoryCheckpointStore store = new MemoryCheckpointStore();
        try (Spillway sw = config(2, 512 << 10).checkpoints(store, everyTasks(25)).closeMode(CloseMode.CANCEL).build())
        {
            program(sw, 150, store);
        }
        catch (final RuntimeException expected)
        {
            assertNotEquals(null, expected.getMessage());
        }
        try (Spillway sw = config(2, 512 << 10).checkpoints(store, everyTasks(25)).closeMode(CloseMode.CANCEL).build())
        {
            final Data a = sw.data("other", 4096);
            final IllegalStateException e = assertThrows(IllegalStateException.class, () ->
            {
                for (int k = 0; k < 1000; k++)
                {
                    sw.task("other " + k).write(a).submit(ctx -> { });
                }
            });
            assertTrue(e.getMessage().contains("differs"), e.getMessage());
        }
    }
}
