package dev.spillway.kernels.graph;

import dev.spillway.DataNotWrittenException;
import dev.spillway.Privilege;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every {@link TileGraph} must do, run against each implementation. Assertions inside task bodies fail the
 * task, so they surface through {@link TileGraph#awaitAll()}.
 */
@Timeout(600)
public abstract class TileGraphContract
{
    @TempDir
    protected Path dir;

    /** @return a fresh graph whose files live under {@code dir}. */
    protected abstract TileGraph open(Path dir);

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4})
    void randomGraphMatchesSequentialReplay(final long seed)
    {
        try (TileGraph graph = open(dir))
        {
            runAndCheck(graph, new RandomTileProgram(seed, 400));
        }
    }

    @Test
    void buffersHonourPrivileges()
    {
        try (TileGraph graph = open(dir))
        {
            final Tile in = graph.tile("in", 4096);
            final Tile out = graph.tile("out", 1000);
            final Tile both = graph.tile("both", 512);
            final Tile tmp = graph.tile("tmp", 2048);
            final Tile other = graph.tile("other", 64);
            graph.task("init").write(in, both, other).submit(a ->
            {
                fill(a.buffer(in), 1);
                fill(a.buffer(both), 2);
                fill(a.buffer(other), 3);
            });
            graph.task("use").read(in).write(out).readWrite(both).scratch(tmp).submit(a ->
            {
                final ByteBuffer r = a.buffer(in);
                checkShape(r, in);
                assertTrue(r.isReadOnly(), "READ buffer must be read-only");
                assertThrows(ReadOnlyBufferException.class, () -> r.putLong(0, 7));
                for (final Tile t : new Tile[] {out, both, tmp})
                {
                    final ByteBuffer w = a.buffer(t);
                    checkShape(w, t);
                    assertFalse(w.isReadOnly(), t.tag() + " must be writable");
                    w.put(t.size() - 1, (byte)1);
                }
                fill(a.buffer(out), 4);
                assertThrows(RuntimeException.class, () -> a.buffer(other), "an undeclared tile must be refused");
            });
            graph.awaitAll();
            assertArrayEquals(pattern(4096, 1), copyOut(graph, in), "a READ task must leave its input alone");
            assertArrayEquals(pattern(1000, 4), copyOut(graph, out));
        }
    }

    @Test
    void readingATileNoTaskWroteIsRefused()
    {
        try (TileGraph graph = open(dir))
        {
            final Tile t = graph.tile("fresh", 64);
            assertThrows(DataNotWrittenException.class, () -> graph.task("too early").read(t).submit(a -> { }));
            graph.task("first").write(t).submit(a -> fill(a.buffer(t), 3));
            assertArrayEquals(pattern(64, 3), copyOut(graph, t));
        }
    }

    @Test
    void pinnedTilesKeepTheirContents()
    {
        try (TileGraph graph = open(dir))
        {
            final Tile ghost = graph.pinnedTile("ghost", 8192);
            graph.task("write ghost").write(ghost).submit(a -> fill(a.buffer(ghost), 42));
            final Tile[] churn = new Tile[48];
            for (int i = 0; i < churn.length; i++)
            {
                final Tile t = graph.tile("churn" + i, 8192);
                churn[i] = t;
                final int seed = i;
                graph.task("fill churn" + i).write(t).read(ghost).submit(a -> fill(a.buffer(t), seed));
            }
            for (final Tile t : churn)
            {
                graph.task("bump " + t.tag()).readWrite(t).submit(a -> a.buffer(t).putLong(0, -1));
            }
            graph.awaitAll();
            assertArrayEquals(pattern(8192, 42), copyOut(graph, ghost));
            final byte[] expected = pattern(8192, 7);
            ByteBuffer.wrap(expected).order(ByteOrder.nativeOrder()).putLong(0, -1);
            assertArrayEquals(expected, copyOut(graph, churn[7]), "churn7: its pattern, first long bumped");
        }
    }

    @Test
    void failureReachesAwaitAllWithTheTaskName()
    {
        try (TileGraph graph = open(dir))
        {
            final Tile a = graph.tile("a", 256);
            final Tile b = graph.tile("b", 256);
            final AtomicBoolean dependentRan = new AtomicBoolean();
            final AtomicBoolean independentRan = new AtomicBoolean();
            graph.task("init").write(a, b).submit(x ->
            {
                fill(x.buffer(a), 1);
                fill(x.buffer(b), 2);
            });
            graph.task("explode 7").readWrite(a).submit(x ->
            {
                throw new IllegalStateException("kaboom");
            });
            graph.task("reads a").read(a).submit(x -> dependentRan.set(true));
            graph.task("touches b").readWrite(b).submit(x -> independentRan.set(true));

            final RuntimeException e = assertThrows(RuntimeException.class, graph::awaitAll);
            assertTrue(e.getMessage().contains("explode 7"), "message names the task: " + e.getMessage());
            assertNotNull(causeOfType(e, IllegalStateException.class), "the body's exception is the cause");
            assertFalse(dependentRan.get(), "a task reading a failed task's output must not run");
            assertTrue(independentRan.get(), "independent tasks run on");
            assertDoesNotThrow(graph::awaitAll, "a failure is reported once");

            graph.task("rewrite a").write(a).submit(x -> fill(x.buffer(a), 9));
            graph.awaitAll();
            assertArrayEquals(pattern(256, 9), copyOut(graph, a), "a WRITE clears the failed output");
            final GraphProgress p = graph.progress();
            assertEquals(6, p.tasksSubmitted());
            assertEquals(6, p.tasksDone());
        }
    }

    @Test
    void progressCountsTasks() throws InterruptedException
    {
        try (TileGraph graph = open(dir))
        {
            final Tile chain = graph.tile("chain", 64);
            final CountDownLatch gate = new CountDownLatch(1);
            final CountDownLatch started = new CountDownLatch(1);
            graph.task("gate").write(chain).submit(a ->
            {
                started.countDown();
                assertTrue(gate.await(10, TimeUnit.SECONDS), "gate never opened");
                fill(a.buffer(chain), 5);
            });
            for (int i = 0; i < 20; i++)
            {
                graph.task("link " + i).readWrite(chain).submit(a ->
                {
                    final ByteBuffer c = a.buffer(chain);
                    c.putLong(0, c.getLong(0) + 1);
                });
            }
            assertTrue(started.await(10, TimeUnit.SECONDS));
            final GraphProgress during = graph.progress();
            assertEquals(21, during.tasksSubmitted());
            assertEquals(0, during.tasksDone(), "nothing can finish before the gate");
            gate.countDown();
            graph.awaitAll();
            final GraphProgress after = graph.progress();
            assertEquals(21, after.tasksSubmitted());
            assertEquals(21, after.tasksDone());
            final long expected = ByteBuffer.wrap(pattern(64, 5)).order(ByteOrder.nativeOrder()).getLong(0) + 20;
            assertEquals(expected, ByteBuffer.wrap(copyOut(graph, chain)).order(ByteOrder.nativeOrder()).getLong(0));
        }
    }

    /** Runs {@code program} on {@code graph} and compares every defined tile with the sequential replay. */
    static void runAndCheck(final TileGraph graph, final RandomTileProgram program)
    {
        final Tile[] tiles = new Tile[RandomTileProgram.TILES];
        for (int i = 0; i < tiles.length; i++)
        {
            final String tag = RandomTileProgram.tag(i);
            tiles[i] = RandomTileProgram.pinned(i) ? graph.pinnedTile(tag, program.sizes[i]) :
                graph.tile(tag, program.sizes[i]);
        }
        for (int s = 0; s < program.steps.size(); s++)
        {
            final RandomTileProgram.Step step = program.steps.get(s);
            final TileTaskBuilder b = graph.task("step " + s).priority(s % 5);
            final Tile[] mine = new Tile[step.tiles().length];
            for (int k = 0; k < mine.length; k++)
            {
                mine[k] = tiles[step.tiles()[k]];
                declare(b, mine[k], step.privileges()[k]);
            }
            final int seq = s;
            b.submit(a ->
            {
                final ByteBuffer[] views = new ByteBuffer[mine.length];
                for (int k = 0; k < mine.length; k++)
                {
                    views[k] = a.buffer(mine[k]);
                    checkShape(views[k], mine[k]);
                    assertEquals(step.privileges()[k] == Privilege.READ, views[k].isReadOnly(),
                        "read-only exactly for READ: " + mine[k].tag());
                }
                RandomTileProgram.run(seq, step, views);
            });
        }
        graph.awaitAll();
        assertEquals(program.steps.size(), graph.progress().tasksDone());

        final byte[][] expected = program.replay();
        for (int i = 0; i < tiles.length; i++)
        {
            if (expected[i] != null)
            {
                assertArrayEquals(expected[i], copyOut(graph, tiles[i]), "tile " + tiles[i].tag());
            }
        }
    }

    protected static byte[] copyOut(final TileGraph graph, final Tile tile)
    {
        final byte[] out = new byte[tile.size()];
        graph.task("copy out " + tile.tag()).read(tile).submit(a -> a.buffer(tile).get(0, out));
        graph.awaitAll();
        return out;
    }

    private static void declare(final TileTaskBuilder b, final Tile tile, final Privilege privilege)
    {
        switch (privilege)
        {
            case READ -> b.read(tile);
            case WRITE -> b.write(tile);
            case READ_WRITE -> b.readWrite(tile);
            case SCRATCH -> b.scratch(tile);
        }
    }

    private static void checkShape(final ByteBuffer b, final Tile tile)
    {
        assertTrue(b.isDirect(), tile.tag() + " must be direct");
        assertEquals(ByteOrder.nativeOrder(), b.order(), tile.tag() + " byte order");
        assertEquals(0, b.position(), tile.tag() + " position");
        assertEquals(tile.size(), b.limit(), tile.tag() + " limit");
    }

    protected static void fill(final ByteBuffer b, final long seed)
    {
        final byte[] p = pattern(b.limit(), seed);
        b.put(0, p);
    }

    protected static byte[] pattern(final int size, final long seed)
    {
        final byte[] p = new byte[size];
        long x = seed * 0x9E3779B97F4A7C15L + 1;
        for (int i = 0; i < size; i++)
        {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            p[i] = (byte)x;
        }
        return p;
    }

    private static Throwable causeOfType(final Throwable t, final Class<? extends Throwable> type)
    {
        for (Throwable c = t; c != null; c = c.getCause())
        {
            if (type.isInstance(c))
            {
                return c;
            }
        }
        return null;
    }
}
