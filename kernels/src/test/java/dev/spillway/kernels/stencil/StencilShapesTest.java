package dev.spillway.kernels.stencil;

import dev.spillway.kernels.Verification;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Many block shapes on a sequential graph, the sizes the kernel reports, and the sizes it refuses. */
class StencilShapesTest
{
    @ParameterizedTest(name = "{0}x{1}x{2} in {3}x{4}x{5} blocks")
    @CsvSource({
        "1, 1, 1, 1, 1, 1",
        "5, 1, 1, 2, 1, 1",
        "9, 7, 6, 1, 1, 1",
        "16, 12, 10, 2, 2, 2",
        "40, 9, 7, 3, 1, 2",
        "7, 8, 9, 3, 3, 3",
        "6, 6, 6, 6, 6, 6",
        "30, 13, 11, 2, 3, 2",
        "21, 22, 5, 1, 2, 1"})
    void everyShapeMatchesReferenceBitForBit(final int x, final int y, final int z, final int bx, final int by,
        final int bz)
    {
        final Stencil stencil = new Stencil(x, y, z, bx, by, bz, 2, 3, Stencil.DEFAULT_VERIFY_LIMIT);
        final SequentialGraph graph = new SequentialGraph();
        StencilEngineTest.run(stencil, graph);
        final Verification v = stencil.verify(graph);
        assertTrue(v.verified(), v.toString());
        assertEquals(StencilReference.referenceChecksum(x, y, z, bx, by, bz, 2, 3),
            StencilEngineTest.checksum(graph, stencil));
    }

    @Test
    void gridOverTheVerifyLimitPointsToTheReferenceChecksum()
    {
        final Stencil stencil = new Stencil(24, 20, 16, 2, 2, 2, 3, 4, 1000);
        final SequentialGraph graph = new SequentialGraph();
        StencilEngineTest.run(stencil, graph);
        final Verification v = stencil.verify(graph);
        assertFalse(v.verified());
        assertTrue(Double.isNaN(v.residual()));
        assertTrue(v.method().contains("61440 bytes exceed the verify limit of 1000 bytes"), v.method());
        assertTrue(v.method().contains("StencilReference.referenceChecksum(24, 20, 16, 2, 2, 2, 3, 4)"), v.method());
    }

    @Test
    void reportsSizesWorkAndTasks()
    {
        final Stencil stencil = new Stencil(24, 20, 16, 2, 2, 2, 3, 5, 0);
        final long ghosts = 8 * (10 * 8 + 12 * 8 + 12 * 10) * 8L;
        assertEquals(24 * 20 * 16, stencil.size());
        assertEquals(12, stencil.tile());
        assertEquals(ghosts, stencil.pinnedBytes());
        assertEquals(24 * 20 * 16 * 8L + ghosts, stencil.dataBytes());
        assertEquals(12 * 10 * 8 * 8L + 2 * ghosts / 8, stencil.largestTaskBytes());
        assertEquals(40, stencil.computeTasks());
        assertEquals(24 * 20 * 16 * 3.0 * 5, stencil.work());
        assertEquals("Gcell/s", stencil.workUnit());
        assertEquals("stencil", stencil.name());
    }

    @Test
    void priorityFallsAlongStepThenBlockOrder()
    {
        final Stencil stencil = new Stencil(12, 10, 8, 2, 2, 1, 1, 3, 0);
        final SequentialGraph graph = new SequentialGraph();
        stencil.declare(graph);
        stencil.initialize(graph);
        final int initTasks = graph.priorities.size();
        stencil.compute(graph);
        final List<Integer> compute = graph.priorities.subList(initTasks, graph.priorities.size());
        assertEquals(12, compute.size());
        for (int i = 1; i < compute.size(); i++)
        {
            assertTrue(compute.get(i) < compute.get(i - 1), "priorities " + compute);
        }
    }

    @Test
    void tagsSortInBlockOrder()
    {
        final Stencil stencil = new Stencil(33, 2, 2, 11, 1, 2, 1, 1, 0);
        final SequentialGraph graph = new SequentialGraph();
        stencil.declare(graph);
        assertEquals("mesh[00,00,00]", stencil.results().get(0).tag());
        assertEquals("mesh[00,00,10]", stencil.results().get(10).tag());
        assertEquals("mesh[01,00,00]", stencil.results().get(11).tag());
        for (int i = 1; i < stencil.results().size(); i++)
        {
            assertTrue(stencil.results().get(i - 1).tag().compareTo(stencil.results().get(i).tag()) < 0);
        }
    }

    @Test
    void refusesToRunUndeclared()
    {
        final Stencil stencil = new Stencil(4, 4, 4, 1, 1, 1, 1, 1, 0);
        assertThrows(IllegalStateException.class, () -> stencil.compute(new SequentialGraph()));
        assertThrows(IllegalStateException.class, stencil::results);
    }

    @Test
    void refusesBadSizesNamingThem()
    {
        assertMessage("grid size along x must be at least 1, got 0", () -> new Stencil(0, 20, 16, 1, 1, 1, 1, 1, 0));
        assertMessage("block count along y must be between 1 and the grid's 20 cells, got 21",
            () -> new Stencil(24, 20, 16, 1, 21, 1, 1, 1, 0));
        assertMessage("block count along z must be between 1 and the grid's 16 cells, got 0",
            () -> new Stencil(24, 20, 16, 1, 1, 0, 1, 1, 0));
        assertMessage("blocks of 2048x1024x1024 cells take 17179869184 bytes, over the 2147483647-byte tile limit",
            () -> new Stencil(4096, 1024, 1024, 2, 1, 1, 1, 1, 0));
        assertMessage("sweeps must be at least 1, got 0", () -> new Stencil(24, 20, 16, 2, 2, 2, 0, 1, 0));
        assertMessage("steps must be at least 1, got -3", () -> new Stencil(24, 20, 16, 2, 2, 2, 1, -3, 0));
        assertMessage("1000000000 steps of 8 blocks are more than",
            () -> new Stencil(24, 20, 16, 2, 2, 2, 1, 1_000_000_000, 0));
        assertMessage("workers must be at least 1, got 0", () -> Stencil.forGrid(8, 8, 8, 0, 1, 1));
    }

    private static void assertMessage(final String expected, final Runnable constructor)
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, constructor::run);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void forGridKeepsBlocksNearCubicUnder64MiBWithTwoPerWorker()
    {
        final Stencil big = Stencil.forGrid(1024, 1024, 1024, 2, 1, 1);
        final int[] counts = big.blockCounts();
        final long largestBlock = 8L * ceil(1024, counts[0]) * ceil(1024, counts[1]) * ceil(1024, counts[2]);
        assertTrue(largestBlock <= 64L << 20, "block of " + largestBlock + " bytes");
        assertTrue(largestBlock > 32L << 20, "block of " + largestBlock + " bytes");
        final int most = Math.max(counts[0], Math.max(counts[1], counts[2]));
        final int least = Math.min(counts[0], Math.min(counts[1], counts[2]));
        assertTrue(most - least <= 1, "counts " + counts[0] + "x" + counts[1] + "x" + counts[2]);

        assertArrayEquals(new int[] {2, 2, 2}, Stencil.forGrid(64, 64, 64, 4, 1, 1).blockCounts());
        assertArrayEquals(new int[] {1, 2, 1}, Stencil.forGrid(8, 64, 8, 1, 1, 1).blockCounts());
        assertArrayEquals(new int[] {3, 1, 1}, Stencil.forGrid(3, 1, 1, 8, 1, 1).blockCounts());
    }

    private static long ceil(final int n, final int d)
    {
        return (n + d - 1) / d;
    }
}
