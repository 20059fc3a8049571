package dev.spillway.kernels.dense;

import dev.spillway.Spillway;
import dev.spillway.io.StoreKind;
import dev.spillway.kernels.Kernel;
import dev.spillway.kernels.KernelRunner;
import dev.spillway.kernels.RunResult;
import dev.spillway.kernels.Verification;
import dev.spillway.kernels.blas.JavaBlas;
import dev.spillway.kernels.blas.OpenBlas;
import dev.spillway.kernels.blas.TileBlas;
import dev.spillway.kernels.graph.EngineGraph;
import dev.spillway.kernels.mmap.MappedGraph;
import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileGraph;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each dense kernel, with native and pure-Java BLAS, in core, out of core and on mapped files: verified by its
 * residual, and bit-identical across the three graphs.
 */
class DenseKernelsTest
{
    private static final long TILE_BYTES = 64 * 64 * Double.BYTES;

    @TempDir
    Path dir;

    static Stream<Arguments> cases()
    {
        final List<Arguments> cases = new ArrayList<>();
        for (final String blas : List.of("openblas", "java"))
        {
            cases.add(Arguments.of(blas, "matmul"));
            cases.add(Arguments.of(blas, "lu"));
            cases.add(Arguments.of(blas, "lu-pivoting"));
        }
        return cases.stream();
    }

    static TileBlas blas(final String name)
    {
        if ("java".equals(name))
        {
            return new JavaBlas();
        }
        try
        {
            return OpenBlas.load();
        }
        catch (final RuntimeException | UnsatisfiedLinkError e)
        {
            if ("true".equals(System.getenv("CI")))
            {
                throw new AssertionError("OpenBLAS is required under CI=true: " + e, e);
            }
            Assumptions.abort("OpenBLAS not available: " + e);
            return null;
        }
    }

    static Kernel kernel(final String name, final TileBlas blas, final long budget)
    {
        switch (name)
        {
            case "matmul":
                return new Gemm(384, 64, Gemm.blockFor(budget, 384, 64), blas);
            case "lu":
                return new Lu(384, 64, false, blas);
            default:
                return new Lu(384, 64, true, blas);
        }
    }

    private Spillway engine(final long budget, final String policy, final String sub)
    {
        return Spillway.builder().workers(2).dramBudget(budget).store(StoreKind.DIRECT).storeDir(dir.resolve(sub))
            .policy(policy).build();
    }

    @ParameterizedTest(name = "{1} with {0} BLAS")
    @MethodSource("cases")
    void verifiedAndBitIdenticalInCoreOutOfCoreAndMapped(final String blasName, final String kernelName)
    {
        final TileBlas blas = blas(blasName);
        final long data = kernel(kernelName, blas, Long.MAX_VALUE).dataBytes();
        final long budget = Math.max(data / 4, kernel(kernelName, blas, Long.MAX_VALUE).largestTaskBytes() + 4 * TILE_BYTES);

        final RunResult outOfCore;
        try (EngineGraph graph = new EngineGraph(engine(budget, "lu".startsWith(kernelName) ? "p,s,d" : "a,s,d", "ooc")))
        {
            outOfCore = KernelRunner.run(kernel(kernelName, blas, budget), graph, true, p -> { });
            assertTrue(graph.stats().nvmBytesWritten() > 0, "never spilled: " + graph.stats());
        }
        assertTrue(outOfCore.verification().verified(), outOfCore.verification().toString());
        assertTrue(outOfCore.bytesRead() > 0, "the compute phase read nothing from NVMe");
        final long bound = kernel(kernelName, blas, budget).ioLowerBound(budget).bytes();
        assertTrue(bound > 0 && outOfCore.bytesRead() + outOfCore.bytesWritten() >= bound, "read " +
            outOfCore.bytesRead() + " + written " + outOfCore.bytesWritten() + " B against the I/O lower bound " + bound +
            " B: " + kernel(kernelName, blas, budget).ioLowerBound(budget).formula());
        assertEquals(0, kernel(kernelName, blas, budget).ioLowerBound(4 * data).bytes(), "in core no I/O is needed");

        final RunResult inCore;
        try (EngineGraph graph = new EngineGraph(engine(4 * data, "f", "incore")))
        {
            inCore = KernelRunner.run(kernel(kernelName, blas, budget), graph, true, p -> { });
        }
        assertTrue(inCore.verification().verified(), inCore.verification().toString());
        assertEquals(0, inCore.bytesRead());

        final RunResult mapped;
        try (MappedGraph graph = new MappedGraph(dir.resolve("mapped"), 2))
        {
            mapped = KernelRunner.run(kernel(kernelName, blas, budget), graph, false, p -> { });
        }
        assertEquals(inCore.checksum(), outOfCore.checksum(), "out of core differs from in core");
        assertEquals(inCore.checksum(), mapped.checksum(), "mapped files differ from in core");
    }

    @ParameterizedTest(name = "{1} with {0} BLAS")
    @MethodSource("cases")
    void aCorruptedResultFailsVerification(final String blasName, final String kernelName)
    {
        final TileBlas blas = blas(blasName);
        final Kernel kernel = kernel(kernelName, blas, Long.MAX_VALUE);
        try (EngineGraph graph = new EngineGraph(engine(4 * kernel.dataBytes(), "f", "corrupt")))
        {
            kernel.declare(graph);
            kernel.initialize(graph);
            kernel.compute(graph);
            final List<Tile> results = kernel.results();
            final Tile last = results.get(results.size() - 1);
            graph.task("corrupt " + last.tag()).readWrite(last).submit(x ->
            {
                final var b = x.buffer(last);
                for (int col = 0; col < 64; col++)
                {
                    final int at = (col * 64 + 63) << 3;
                    b.putDouble(at, b.getDouble(at) + 1e-3);
                }
            });
            graph.awaitAll();
            assertFalse(kernel.verify(graph).verified(), "verification missed a corrupted last row");
        }
    }

    /**
     * Above {@code SampledRows.ALL_ROWS_UP_TO} the row check samples the last tile row only, which is eliminated
     * consistently against whatever the rows above hold; the probe of every entry must catch a wrong tile of L there.
     */
    @ParameterizedTest(name = "pivoting {0}")
    @ValueSource(booleans = {false, true})
    void aWrongTileAboveTheSampledRowsFailsVerification(final boolean pivoting)
    {
        final Lu lu = new Lu(1152, 128, pivoting, new JavaBlas());
        try (EngineGraph graph = new EngineGraph(engine(4 * lu.dataBytes(), "f", "above")))
        {
            lu.declare(graph);
            lu.initialize(graph);
            lu.compute(graph);
            final Tile below = lu.results().get(9);
            graph.task("corrupt " + below.tag()).readWrite(below).submit(x ->
            {
                final var b = x.buffer(below);
                for (int row = 0; row < 128; row++)
                {
                    b.putDouble(row << 3, b.getDouble(row << 3) + 1e-3);
                }
            });
            graph.awaitAll();
            final Verification verification = lu.verify(graph);
            assertFalse(verification.verified(), "verification missed a wrong tile " + below.tag() + ": " +
                verification);
        }
    }

    @Test
    void aWrongRowOutsideTheSampleFailsGemmVerification()
    {
        final Gemm gemm = new Gemm(1152, 128, 9, new JavaBlas());
        final java.util.Set<Integer> sampled = java.util.Arrays.stream(SampledRows.of(1152, 0, 7).rows).boxed()
            .collect(java.util.stream.Collectors.toSet());
        final int row = java.util.stream.IntStream.range(0, 128).filter(r -> !sampled.contains(4 * 128 + r))
            .findFirst().orElseThrow();
        try (EngineGraph graph = new EngineGraph(engine(4 * gemm.dataBytes(), "f", "unsampled")))
        {
            gemm.declare(graph);
            gemm.initialize(graph);
            gemm.compute(graph);
            final Tile tile = gemm.results().get(4 * 9 + 2);
            graph.task("corrupt " + tile.tag()).readWrite(tile).submit(x ->
            {
                final var b = x.buffer(tile);
                for (int col = 0; col < 128; col++)
                {
                    final int at = (col * 128 + row) << 3;
                    b.putDouble(at, b.getDouble(at) + 1e-3);
                }
            });
            graph.awaitAll();
            final Verification verification = gemm.verify(graph);
            assertFalse(verification.verified(), "verification missed row " + row + " of " + tile.tag() + ": " +
                verification);
        }
        final Gemm clean = new Gemm(1152, 128, 9, new JavaBlas());
        try (EngineGraph graph = new EngineGraph(engine(4 * clean.dataBytes(), "f", "clean")))
        {
            final RunResult result = KernelRunner.run(clean, graph, true, p -> { });
            assertTrue(result.verification().verified(), result.verification().toString());
        }
    }

    @ParameterizedTest(name = "pivoting {0}")
    @ValueSource(booleans = {false, true})
    void aLargerLuIsVerifiedByItsSampleAndItsProbe(final boolean pivoting)
    {
        final Lu lu = new Lu(1152, 128, pivoting, new JavaBlas());
        try (EngineGraph graph = new EngineGraph(engine(4 * lu.dataBytes(), "f", "larger")))
        {
            final RunResult result = KernelRunner.run(lu, graph, true, p -> { });
            assertTrue(result.verification().verified(), result.verification().toString());
            assertTrue(result.verification().method().contains("sampled rows"), result.verification().toString());
        }
    }

    @Test
    void shapesThatAreNotTileMultiplesAreRefusedByName()
    {
        final TileBlas blas = new JavaBlas();
        final Function<Integer, Exception> gemm = n -> assertThrows(IllegalArgumentException.class,
            () -> new Gemm(n, 64, 1, blas));
        assertTrue(gemm.apply(100).getMessage().contains("100"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new Lu(130, 64, false, blas)).getMessage()
            .contains("130"));
    }

    /**
     * LU of 16 × 16 tiles at an eighth of its data: under its left-looking priorities, with the admission window and
     * next uses ordered by priority, the tile column being factored stays resident, so each tile is written back
     * about once and the earlier columns are streamed. It writes 1.06 times its data and reads 5.6 times; with the
     * window off, 4.7 and 8.6; with next uses in submission order, 3.8 and 8.1.
     */
    @Test
    void leftLookingLuWritesEachTileAboutOnceAtAnEighthOfItsData()
    {
        final Lu lu = new Lu(1024, 64, false, new JavaBlas());
        final long data = lu.dataBytes();
        final RunResult run;
        try (EngineGraph graph = new EngineGraph(engine(data / 8, "p,s,d", "lu")))
        {
            run = KernelRunner.run(lu, graph, true, p -> { });
        }
        assertTrue(run.verification().verified(), run.verification().toString());
        final String moved = "read " + run.bytesRead() + " B and wrote " + run.bytesWritten() + " B for " + data +
            " B of data";
        assertTrue(run.bytesWritten() <= 2 * data, "written at most twice the data: " + moved);
        assertTrue(run.bytesRead() <= 8 * data, "read at most eight times the data: " + moved);
        System.out.println("left-looking LU at 12.5 %: " + moved);
    }

    /** Column blocks reorder LU's tasks, never a tile's updates: the result is bit-identical, and it is verified. */
    @ParameterizedTest(name = "pivoting {0}")
    @ValueSource(booleans = {false, true})
    void luColumnBlocksChangeTheOrderNotTheResult(final boolean pivoting)
    {
        final long budget = 5 * 384L * 64 * Double.BYTES;
        final int wide = Lu.widthFor(budget, 384, 64, pivoting);
        assertEquals(pivoting ? 2 : 3, wide);
        final List<String> checksums = new ArrayList<>();
        for (final int width : new int[] {1, wide, 384 / 64})
        {
            try (EngineGraph graph = new EngineGraph(engine(budget, "p,s,d", "w" + width + pivoting)))
            {
                final RunResult run = KernelRunner.run(new Lu(384, 64, width, pivoting, new JavaBlas()), graph, true,
                    p -> { });
                assertTrue(run.verification().verified(), "width " + width + ": " + run.verification());
                checksums.add(run.checksum());
            }
        }
        assertEquals(checksums.get(0), checksums.get(1), "width 1 and " + wide);
        assertEquals(checksums.get(0), checksums.get(2), "submitted in run order (width 1) and right-looking (one " +
            "block of every column)");
    }

    @Test
    void luColumnBlockGrowsWithTheBudget()
    {
        final long column = 1024L * 64 * Double.BYTES;
        assertEquals(1, Lu.widthFor(2 * column, 1024, 64, false), "at least one column");
        assertEquals(1, Lu.widthFor(3 * column, 1024, 64, false));
        assertEquals(2, Lu.widthFor(4 * column + column / 2, 1024, 64, false), "two spare columns, whole columns only");
        assertEquals(2, Lu.widthFor(5 * column, 1024, 64, true), "three spare with pivoting");
        assertEquals(16, Lu.widthFor(100 * column, 1024, 64, false), "no wider than the matrix");
        assertThrows(IllegalArgumentException.class, () -> new Lu(1024, 64, 0, false, new JavaBlas()));
    }

    @Test
    void luColumnBlockOnRanksCountsOnlyTheTilesEachRankHolds()
    {
        final long rankColumn = 8L * 64 * 64 * Double.BYTES;
        assertEquals(Lu.widthFor(rankColumn * 9, 1024, 64, true), Lu.widthFor(rankColumn * 9, 1024, 64, true, 1));
        assertEquals(4, Lu.widthFor(4 * rankColumn, 1024, 64, false, 4), "2×2 grid: half a column, every 2nd column");
        assertEquals(6, Lu.widthFor(4 * rankColumn, 1024, 64, false, 6), "2×3 grid: every 3rd column");
        assertEquals(1, Lu.widthFor(4 * rankColumn, 1024, 64, false, 1), "one rank: two whole columns, no block");
        assertEquals(4, Lu.widthFor(7 * rankColumn, 1024, 64, true, 4), "pivoting spares a whole panel column");
    }

    @Test
    void gemmBlockGrowsWithTheBudget()
    {
        final long tile = 64L * 64 * 8;
        assertEquals(1, Gemm.blockFor(6 * tile, 640, 64));
        assertEquals(4, Gemm.blockFor(34 * tile, 640, 64));
        assertEquals(10, Gemm.blockFor(1000 * tile, 640, 64));
        assertEquals(4, Gemm.blockFor(34 * tile, 640, 64, 1));
        assertEquals(8, Gemm.blockFor(34 * tile, 640, 64, 4), "2×2 grid: a quarter of each block per rank");
    }
}
