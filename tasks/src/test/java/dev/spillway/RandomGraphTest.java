package dev.spillway;

import dev.spillway.io.StoreKind;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Seeded random task graphs with random privileges, run out of core under budgets down to the largest single
 * working set, must leave every object bit-identical to running the same bodies sequentially in submission order.
 */
class RandomGraphTest
{
    private static final String[] POLICIES = {"f", "a", "p", "a,s", "p,s", "p,s,d", "a,s,d", "f,d"};

    @TempDir
    Path dir;

    static LongStream seeds()
    {
        return LongStream.range(0, Long.getLong("spillway.test.graphs", 240));
    }

    /** One planned task: objects, privileges and a priority. */
    private record Step(int[] objects, Privilege[] privileges, int priority)
    {
    }

    @ParameterizedTest(name = "graph {0}")
    @MethodSource("seeds")
    @Timeout(600)
    void matchesSequentialExecution(final long seed)
    {
        final SplittableRandom rnd = new SplittableRandom(seed);
        final int objects = 2 + rnd.nextInt(rnd.nextBoolean() ? 100 : 20);
        final int[] sizes = new int[objects];
        for (int i = 0; i < objects; i++)
        {
            sizes[i] = 8 * (1 + rnd.nextInt(rnd.nextInt(4) == 0 ? 2048 : 512));
        }
        final List<Step> steps = plan(rnd, objects, 10 + rnd.nextInt(120));

        final byte[][] expected = new byte[objects][];
        final boolean[] defined = new boolean[objects];
        for (int i = 0; i < objects; i++)
        {
            expected[i] = new byte[sizes[i]];
        }
        long largest = 0;
        for (int s = 0; s < steps.size(); s++)
        {
            final Step step = steps.get(s);
            final ByteBuffer[] views = new ByteBuffer[step.objects.length];
            long ws = 0;
            for (int k = 0; k < views.length; k++)
            {
                views[k] = ByteBuffer.wrap(expected[step.objects[k]]);
                ws += roundUp(sizes[step.objects[k]]);
            }
            largest = Math.max(largest, ws);
            body(s, step, views);
            for (int k = 0; k < views.length; k++)
            {
                if (step.privileges[k] != Privilege.READ)
                {
                    defined[step.objects[k]] = step.privileges[k] != Privilege.SCRATCH;
                }
            }
        }

        final long budget = largest + (rnd.nextInt(3) == 0 ? 0 : rnd.nextLong(largest * 2 + 1));
        final String policy = POLICIES[rnd.nextInt(POLICIES.length)];
        final StoreKind store = seed % 5 == 4 ? StoreKind.CHRONICLE : StoreKind.DIRECT;
        try (Spillway sw = Runtimes.small(dir, budget, policy).store(store).workers(1 + rnd.nextInt(3))
            .prefetchDepth(rnd.nextInt(3) * 8).cleanReserve(rnd.nextBoolean() ? 0 : 0.25).build())
        {
            final Data[] data = new Data[objects];
            for (int i = 0; i < objects; i++)
            {
                data[i] = sw.data("o" + i, sizes[i]);
            }
            final List<TaskHandle> handles = new ArrayList<>();
            for (int s = 0; s < steps.size(); s++)
            {
                final Step step = steps.get(s);
                final TaskBuilder b = sw.task("t" + s).priority(step.priority);
                final Data[] mine = new Data[step.objects.length];
                for (int k = 0; k < mine.length; k++)
                {
                    mine[k] = data[step.objects[k]];
                    b.access(mine[k], step.privileges[k]);
                }
                final int seq = s;
                handles.add(b.submit(ctx ->
                {
                    final ByteBuffer[] views = new ByteBuffer[mine.length];
                    for (int k = 0; k < mine.length; k++)
                    {
                        views[k] = ctx.buffer(mine[k]);
                    }
                    body(seq, step, views);
                }));
            }
            sw.awaitAll(java.time.Duration.ofSeconds(500));
            for (final TaskHandle h : handles)
            {
                h.join();
            }
            assertEquals(0, sw.stats().tasksFailed(), "no task may fail");
            for (int i = 0; i < objects; i++)
            {
                if (defined[i])
                {
                    assertArrayEquals(expected[i], Runtimes.copyOut(sw, data[i]),
                        "object o" + i + " (seed " + seed + ", policy " + policy + ", budget " + budget + ", " + store + ")");
                }
            }
            if (sw.stats().dramPeak() > budget)
            {
                throw new AssertionError("DRAM peak " + sw.stats().dramPeak() + " exceeds budget " + budget);
            }
        }
    }

    private static long roundUp(final int size)
    {
        return (size + 4095L) & -4096L;
    }

    private static List<Step> plan(final SplittableRandom rnd, final int objects, final int tasks)
    {
        final boolean[] defined = new boolean[objects];
        final List<Step> steps = new ArrayList<>();
        for (int s = 0; s < tasks; s++)
        {
            final int n = 1 + rnd.nextInt(Math.min(4, objects));
            final int[] chosen = rnd.ints(0, objects).distinct().limit(n).toArray();
            final Privilege[] p = new Privilege[n];
            for (int k = 0; k < n; k++)
            {
                final Privilege[] allowed = defined[chosen[k]] ? Privilege.values() :
                    new Privilege[] {Privilege.WRITE, Privilege.SCRATCH};
                p[k] = allowed[rnd.nextInt(allowed.length)];
            }
            for (int k = 0; k < n; k++)
            {
                if (p[k] != Privilege.READ)
                {
                    defined[chosen[k]] = p[k] != Privilege.SCRATCH;
                }
            }
            steps.add(new Step(chosen, p, rnd.nextInt(5)));
        }
        return steps;
    }

    /** Deterministic body: hash every readable input, then fill outputs from the hash and the task number. */
    private static void body(final int seq, final Step step, final ByteBuffer[] views)
    {
        long h = 0x243F6A8885A308D3L ^ seq;
        for (int k = 0; k < views.length; k++)
        {
            if (step.privileges[k].readsContents())
            {
                final ByteBuffer v = views[k].duplicate();
                while (v.remaining() >= 8)
                {
                    h = (h ^ v.getLong()) * 0x100000001B3L;
                }
            }
        }
        for (int k = 0; k < views.length; k++)
        {
            final Privilege p = step.privileges[k];
            if (p == Privilege.SCRATCH)
            {
                final ByteBuffer v = views[k].duplicate();
                Runtimes.fill(v, h + k);
                final ByteBuffer back = views[k].duplicate();
                h += back.getLong(0);
            }
        }
        for (int k = 0; k < views.length; k++)
        {
            final Privilege p = step.privileges[k];
            if (p == Privilege.WRITE)
            {
                Runtimes.fill(views[k].duplicate(), h + 31L * k);
            }
            else if (p == Privilege.READ_WRITE)
            {
                final ByteBuffer v = views[k].duplicate();
                for (int i = 0; i + 8 <= v.limit(); i += 8)
                {
                    v.putLong(i, v.getLong(i) * 31 + h + i);
                }
            }
        }
    }
}
