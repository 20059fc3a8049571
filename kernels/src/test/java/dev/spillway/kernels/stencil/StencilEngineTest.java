package dev.spillway.kernels.stencil;

import dev.spillway.Spillway;
import dev.spillway.SpillwayStats;
import dev.spillway.io.StoreKind;
import dev.spillway.kernels.IoLowerBound;
import dev.spillway.kernels.Kernel;
import dev.spillway.kernels.ResultChecksum;
import dev.spillway.kernels.Verification;
import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.EngineGraph;
import dev.spillway.kernels.graph.TileGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The stencil on the real engine, in core and out of core, against {@link StencilReference}. */
class StencilEngineTest
{
    private static final int PAGE = 4096;
    private static final int SWEEPS = 3;
    private static final int STEPS = 3;

    @TempDir
    Path dir;

    static Stream<Arguments> runs()
    {
        final int[][] shapes = {{24, 20, 16, 2, 2, 2}, {24, 20, 16, 3, 2, 1}, {13, 11, 9, 3, 2, 2}};
        final List<Arguments> runs = new ArrayList<>();
        for (final int[] s : shapes)
        {
            for (final String policy : new String[] {"f", "a,s,d"})
            {
                for (final boolean outOfCore : new boolean[] {false, true})
                {
                    runs.add(Arguments.of(s[0], s[1], s[2], s[3], s[4], s[5], policy, outOfCore));
                }
            }
        }
        return runs.stream();
    }

    @ParameterizedTest(name = "{0}x{1}x{2} in {3}x{4}x{5} blocks, policy {6}, out of core {7}")
    @MethodSource("runs")
    void matchesReferenceBitForBit(final int x, final int y, final int z, final int bx, final int by, final int bz,
        final String policy, final boolean outOfCore)
    {
        final Stencil stencil = new Stencil(x, y, z, bx, by, bz, SWEEPS, STEPS, Stencil.DEFAULT_VERIFY_LIMIT);
        final long budget = outOfCore ? quarterBudget(x, y, z, bx, by, bz) : 64L << 20;
        try (Spillway spillway = open(budget, policy))
        {
            final EngineGraph graph = new EngineGraph(spillway);
            stencil.declare(graph);
            stencil.initialize(graph);
            graph.awaitAll();
            final SpillwayStats before = spillway.stats();
            stencil.compute(graph);
            graph.awaitAll();
            final SpillwayStats after = spillway.stats();
            final long moved = after.nvmBytesRead() - before.nvmBytesRead() + after.nvmBytesWritten() -
                before.nvmBytesWritten();
            // the engine rounds each ghost up to a page, so the blocks have the budget less those pages
            final IoLowerBound bound = stencil.ioLowerBound(budget - pinnedPages(x, y, z, bx, by, bz) +
                stencil.pinnedBytes());
            assertTrue(moved >= bound.bytes(), "moved " + moved + " B in the compute phase, under the bound " + bound);
            // blocks under a page (the third shape) fit, counted in bytes, in the room their pages leave
            final boolean pageOrMore = x / bx * (y / by) * (z / bz) * Double.BYTES >= PAGE;
            assertEquals(outOfCore && pageOrMore, bound.bytes() > 0, "the bound is 0 where the blocks fit: " + bound);
            final Verification v = stencil.verify(graph);
            assertTrue(v.verified(), v.toString());
            assertEquals(0.0, v.residual());
            assertEquals("whole grid vs in-memory sweep", v.method());
            assertEquals(StencilReference.referenceChecksum(x, y, z, bx, by, bz, SWEEPS, STEPS),
                checksum(graph, stencil));
            if (outOfCore)
            {
                assertTrue(spillway.stats().nvmBytesWritten() > 0, "the run never spilled: " + spillway.stats());
            }
        }
    }

    @Test
    void verificationCatchesStaleGhosts()
    {
        final Stencil stencil = new Stencil(24, 20, 16, 2, 2, 2, SWEEPS, STEPS, Stencil.DEFAULT_VERIFY_LIMIT);
        try (Spillway spillway = open(64L << 20, "a,s,d"))
        {
            final TileGraph graph = new GhostDroppingGraph(new EngineGraph(spillway));
            run(stencil, graph);
            final Verification v = stencil.verify(graph);
            assertFalse(v.verified(), v.toString());
            assertTrue(v.residual() > 1e-6, v.toString());
            assertNotEquals(StencilReference.referenceChecksum(24, 20, 16, 2, 2, 2, SWEEPS, STEPS),
                checksum(graph, stencil));
        }
    }

    private Spillway open(final long budget, final String policy)
    {
        return Spillway.builder().workers(2).dramBudget(budget).storeDir(dir).store(StoreKind.DIRECT).policy(policy)
            .storeSizing(256, 64 << 10).build();
    }

    /** @return room for every ghost, pinned, and a quarter of the blocks (at least two, one per worker). */
    private static long quarterBudget(final int x, final int y, final int z, final int bx, final int by,
        final int bz)
    {
        final SequentialGraph shapes = new SequentialGraph();
        new Stencil(x, y, z, bx, by, bz, 1, 1, 0).declare(shapes);
        final long pinned = pinnedPages(x, y, z, bx, by, bz);
        long blocks = 0;
        long largest = 0;
        for (final Tile t : shapes.unpinned)
        {
            blocks += pages(t.size());
            largest = Math.max(largest, pages(t.size()));
        }
        return pinned + Math.max(blocks / 4, 2 * largest);
    }

    private static long pinnedPages(final int x, final int y, final int z, final int bx, final int by, final int bz)
    {
        final SequentialGraph shapes = new SequentialGraph();
        new Stencil(x, y, z, bx, by, bz, 1, 1, 0).declare(shapes);
        long pinned = 0;
        for (final Tile t : shapes.pinned)
        {
            pinned += pages(t.size());
        }
        return pinned;
    }

    private static long pages(final int bytes)
    {
        return (bytes + PAGE - 1L) / PAGE * PAGE;
    }

    static void run(final Kernel kernel, final TileGraph graph)
    {
        kernel.declare(graph);
        kernel.initialize(graph);
        graph.awaitAll();
        kernel.compute(graph);
        graph.awaitAll();
    }

    /** @return the result checksum as the runner takes it: each result tile read by a task. */
    static String checksum(final TileGraph graph, final Kernel kernel)
    {
        final ResultChecksum checksum = new ResultChecksum();
        for (final Tile t : kernel.results())
        {
            graph.task("checksum " + t.tag()).read(t).submit(access -> checksum.add(t.tag(), access.buffer(t)));
        }
        graph.awaitAll();
        return checksum.value();
    }
}
