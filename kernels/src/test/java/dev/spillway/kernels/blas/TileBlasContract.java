package dev.spillway.kernels.blas;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@link TileBlas} contract, checked against naive reference kernels on double[]; one subclass each. */
abstract class TileBlasContract
{
    private static final double EPS = Math.ulp(1.0);

    abstract TileBlas blas();

    @Test
    void dgemmMatchesTripleLoopForEveryShapeTransposeAndScalar()
    {
        final Random random = new Random(11);
        final int[][] shapes = {{1, 1, 1}, {7, 5, 3}, {37, 29, 41}, {130, 70, 300}, {5, 1030, 9}, {3, 4, 0}};
        final double[][] scalars = {{1, 0}, {-0.5, 2}, {0.75, 1}};
        for (final int[] shape : shapes)
        {
            for (int t = 0; t < 4; t++)
            {
                final double[] scalar = scalars[(t + shape[0]) % scalars.length];
                checkDgemm(random, shape[0], shape[1], shape[2], (t & 1) != 0, (t & 2) != 0, scalar[0], scalar[1]);
            }
        }
    }

    private void checkDgemm(
        final Random random, final int m, final int n, final int k, final boolean transA, final boolean transB,
        final double alpha, final double beta)
    {
        final Dense opA = Dense.random(m, k, m, random);
        final Dense opB = Dense.random(k, n, k, random);
        final Dense a = transA ? stored(opA.transpose(), 2) : stored(opA, 3);
        final Dense b = transB ? stored(opB.transpose(), 1) : stored(opB, 4);
        final Dense c = Dense.random(m, n, m + 5, random);
        final ByteBuffer cb = c.buffer();
        blas().dgemm(transA, transB, m, n, k, alpha, a.buffer(), a.ld, b.buffer(), b.ld, beta, cb, c.ld);

        final Dense expected = opA.times(opB);
        for (int j = 0; j < n; j++)
        {
            for (int i = 0; i < m; i++)
            {
                expected.set(i, j, alpha * expected.get(i, j) + beta * c.get(i, j));
            }
        }
        c.readBack(cb).assertNear(expected, 8 * (k + 2) * EPS,
            "dgemm " + m + "x" + n + "x" + k + " transA=" + transA + " transB=" + transB + " alpha=" + alpha);
    }

    @Test
    void dgemmWithBetaZeroIgnoresNaNInC()
    {
        final Random random = new Random(12);
        final Dense a = Dense.random(9, 6, 9, random);
        final Dense b = Dense.random(6, 8, 6, random);
        final Dense c = new Dense(9, 8, 10);
        Arrays.fill(c.data, Double.NaN);
        for (int j = 0; j < 8; j++)
        {
            c.set(9, j, Dense.PAD);
        }
        final ByteBuffer cb = c.buffer();
        blas().dgemm(false, false, 9, 8, 6, 1, a.buffer(), 9, b.buffer(), 6, 0, cb, 10);
        c.readBack(cb).assertNear(a.times(b), 1e-14, "beta=0 over NaN");
    }

    @Test
    void dgemmWithAlphaZeroOnlyScalesC()
    {
        final Random random = new Random(13);
        final Dense a = new Dense(4, 3, 4);
        final Dense b = new Dense(3, 5, 3);
        Arrays.fill(a.data, Double.NaN);
        Arrays.fill(b.data, Double.NaN);
        final Dense c = Dense.random(4, 5, 4, random);
        final ByteBuffer cb = c.buffer();
        blas().dgemm(false, false, 4, 5, 3, 0, a.buffer(), 4, b.buffer(), 3, -3, cb, 4);
        final Dense expected = c.copy();
        for (int i = 0; i < expected.data.length; i++)
        {
            expected.data[i] *= -3;
        }
        c.readBack(cb).assertNear(expected, 0, "alpha=0");
    }

    @Test
    void dtrsmSolvesEverySideTriangleTransposeAndDiagonal()
    {
        final Random random = new Random(21);
        final double[] alphas = {1, -2.5, 0.5};
        int combination = 0;
        for (int flags = 0; flags < 16; flags++)
        {
            final boolean left = (flags & 1) != 0;
            final boolean lower = (flags & 2) != 0;
            final boolean transA = (flags & 4) != 0;
            final boolean unit = (flags & 8) != 0;
            checkDtrsm(random, left, lower, transA, unit, 45, 13, alphas[combination++ % alphas.length]);
        }
        checkDtrsm(random, true, true, false, true, 150, 70, 1);
        checkDtrsm(random, true, true, false, true, 64, 300, -1);
        checkDtrsm(random, false, false, false, false, 70, 150, 1);
        checkDtrsm(random, false, false, false, false, 300, 65, 2);
    }

    private void checkDtrsm(
        final Random random, final boolean left, final boolean lower, final boolean transA, final boolean unit,
        final int m, final int n, final double alpha)
    {
        final int order = left ? m : n;
        final Dense a = new Dense(order, order, order + 2);
        final Dense triangle = new Dense(order, order, order);
        for (int j = 0; j < order; j++)
        {
            for (int i = 0; i < order; i++)
            {
                if (i == j)
                {
                    final double d = 1 + random.nextDouble();
                    a.set(i, j, unit ? Double.NaN : d);
                    triangle.set(i, j, unit ? 1 : d);
                }
                else if (lower == i > j)
                {
                    final double v = (2 * random.nextDouble() - 1) / Math.sqrt(order);
                    a.set(i, j, v);
                    triangle.set(i, j, v);
                }
                else
                {
                    a.set(i, j, Double.NaN);
                }
            }
        }
        final Dense b = Dense.random(m, n, m + 1, random);
        final ByteBuffer bb = b.buffer();
        blas().dtrsm(left, lower, transA, unit, m, n, alpha, readOnly(a.buffer()), a.ld, bb, b.ld);

        final Dense x = b.readBack(bb);
        final Dense op = transA ? triangle.transpose() : triangle;
        final Dense product = left ? op.times(x) : x.times(op);
        final Dense expected = b.copy();
        for (int i = 0; i < expected.data.length; i++)
        {
            expected.data[i] *= alpha;
        }
        product.assertNear(expected, 1e-11 * Math.max(1, Math.abs(alpha)),
            "dtrsm " + m + "x" + n + " left=" + left + " lower=" + lower + " transA=" + transA + " unit=" + unit);
    }

    @Test
    void dtrsmWithAlphaZeroClearsB()
    {
        final Dense a = new Dense(3, 3, 3);
        Arrays.fill(a.data, Double.NaN);
        final Dense b = Dense.random(3, 4, 3, new Random(22));
        final ByteBuffer bb = b.buffer();
        blas().dtrsm(true, true, false, false, 3, 4, 0, a.buffer(), 3, bb, 3);
        b.readBack(bb).assertNear(new Dense(3, 4, 3), 0, "alpha=0");
    }

    @Test
    void dgetrfNoPivotMatchesTextbookLu()
    {
        final Random random = new Random(31);
        final int[][] shapes = {{1, 1}, {5, 5}, {200, 200}, {150, 90}, {90, 150}, {37, 37}};
        for (final int[] shape : shapes)
        {
            final int m = shape[0];
            final int n = shape[1];
            final Dense a = Dense.dominant(m, n, m + 3, random);
            final ByteBuffer ab = a.buffer();
            blas().dgetrfNoPivot(m, n, ab, a.ld);
            final Dense lu = a.readBack(ab);

            final Dense reference = a.copy();
            assertEquals(-1, reference.referenceLu(null));
            final String what = "no-pivot LU " + m + "x" + n;
            lu.assertNear(reference, 1e-12, what);
            assertResidual(a, lu.unitLower().times(lu.upper()), what);
        }
    }

    @Test
    void dgetrfNoPivotIsExactOnIntegerFactors()
    {
        final Dense l = new Dense(130, 130, 130);
        final Dense u = new Dense(130, 130, 130);
        integerFactors(new Random(32), l, u);
        final Dense a = l.times(u);
        final ByteBuffer ab = a.buffer();
        blas().dgetrfNoPivot(130, 130, ab, a.ld);
        final Dense lu = a.readBack(ab);
        lu.unitLower().assertNear(l, 0, "L");
        lu.upper().assertNear(u, 0, "U");
    }

    @Test
    void dgetrfNoPivotNamesTheColumnOfAZeroPivot()
    {
        final Dense first = Dense.dominant(20, 20, 20, new Random(33));
        first.set(0, 0, 0);
        final ArithmeticException e0 =
            assertThrows(ArithmeticException.class, () -> blas().dgetrfNoPivot(20, 20, first.buffer(), 20));
        assertTrue(e0.getMessage().contains("column 0 "), e0.getMessage());

        final Dense l = new Dense(130, 130, 130);
        final Dense u = new Dense(130, 130, 130);
        integerFactors(new Random(34), l, u);
        u.set(70, 70, 0);
        final Dense late = l.times(u);
        final ArithmeticException e70 =
            assertThrows(ArithmeticException.class, () -> blas().dgetrfNoPivot(130, 130, late.buffer(), 130));
        assertTrue(e70.getMessage().contains("column 70 "), e70.getMessage());
    }

    @Test
    void dgetrfPivotsLikeLapackAndFactors()
    {
        final Random random = new Random(41);
        final int[][] shapes = {{1, 1}, {6, 6}, {200, 200}, {150, 90}, {90, 150}, {33, 33}};
        for (final int[] shape : shapes)
        {
            for (final boolean dominant : new boolean[] {false, true})
            {
                final int m = shape[0];
                final int n = shape[1];
                final Dense a = dominant ? Dense.dominant(m, n, m + 2, random) : Dense.random(m, n, m + 2, random);
                final ByteBuffer ab = a.buffer();
                final int k = Math.min(m, n);
                final int[] ipiv = new int[k + 1];
                ipiv[k] = -5;
                blas().dgetrf(m, n, ab, a.ld, ipiv);
                final Dense lu = a.readBack(ab);

                final Dense reference = a.copy();
                final int[] referencePivots = new int[k + 1];
                referencePivots[k] = -5;
                assertEquals(-1, reference.referenceLu(referencePivots));
                final String what = "LU " + m + "x" + n + (dominant ? " dominant" : " random");
                assertArrayEquals(referencePivots, ipiv, what + ": pivots");
                if (dominant)
                {
                    for (int i = 0; i < k; i++)
                    {
                        assertEquals(i, ipiv[i], what + ": dominant matrices need no interchange");
                    }
                }
                lu.assertNear(reference, 1e-10, what);
                assertResidual(a.permuted(ipiv, k), lu.unitLower().times(lu.upper()), what);
            }
        }
    }

    @Test
    void dgetrfTakesTheFirstOfTiedPivots()
    {
        final Dense a = Dense.random(40, 40, 40, new Random(43));
        a.set(7, 0, 5);
        a.set(3, 0, -5);
        a.set(30, 0, 5);
        final int[] ipiv = new int[40];
        blas().dgetrf(40, 40, a.buffer(), 40, ipiv);
        assertEquals(3, ipiv[0]);
    }

    @Test
    void dgetrfNamesTheColumnOfAZeroPivot()
    {
        for (final int column : new int[] {0, 5, 100})
        {
            final Dense a = Dense.random(140, 140, 140, new Random(42));
            for (int i = 0; i < 140; i++)
            {
                a.set(i, column, 0);
            }
            final ArithmeticException e =
                assertThrows(ArithmeticException.class, () -> blas().dgetrf(140, 140, a.buffer(), 140, new int[140]));
            assertTrue(e.getMessage().contains("column " + column + " "), e.getMessage());
        }
    }

    @Test
    void acceptsReadOnlyInputs()
    {
        final Random random = new Random(51);
        final Dense a = Dense.random(20, 30, 20, random);
        final Dense b = Dense.random(30, 10, 30, random);
        final Dense c = new Dense(20, 10, 20);
        final ByteBuffer cb = c.buffer();
        blas().dgemm(false, false, 20, 10, 30, 1, readOnly(a.buffer()), 20, readOnly(b.buffer()), 30, 0, cb, 20);
        c.readBack(cb).assertNear(a.times(b), 1e-13, "read-only dgemm inputs");
    }

    @Test
    void rejectsBuffersThatCannotHoldTheOperands()
    {
        final TileBlas blas = blas();
        final ByteBuffer four = new Dense(2, 2, 2).buffer();
        final ByteBuffer heap = ByteBuffer.allocate(32).order(ByteOrder.nativeOrder());
        final ByteBuffer other = new Dense(2, 2, 2).buffer();
        assertMessage("lda=1", () -> blas.dgemm(false, false, 2, 2, 2, 1, four, 1, four, 2, 0, other, 2));
        assertMessage("b holds 32 bytes", () -> blas.dgemm(false, false, 2, 3, 2, 1, four, 2, four, 2, 0, four, 2));
        assertMessage("c is read-only",
            () -> blas.dgemm(false, false, 2, 2, 2, 1, four, 2, four, 2, 0, readOnly(four), 2));
        assertMessage("a is not a direct buffer", () -> blas.dtrsm(true, true, false, true, 2, 2, 1, heap, 2, four, 2));
        assertMessage("m=-1", () -> blas.dgetrfNoPivot(-1, 2, four, 2));
        assertMessage("ipiv has 1", () -> blas.dgetrf(2, 2, four, 2, new int[1]));
    }

    @Test
    void concurrentCallersGetTheirOwnResults() throws Exception
    {
        final ExecutorService pool = Executors.newFixedThreadPool(3);
        try
        {
            final List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 3; t++)
            {
                final long seed = 60 + t;
                futures.add(pool.submit(() ->
                {
                    final Random random = new Random(seed);
                    for (int r = 0; r < 10; r++)
                    {
                        checkDgemm(random, 64, 48, 80, false, r % 2 == 0, 1, 0);
                        final Dense a = Dense.dominant(96, 96, 96, random);
                        final ByteBuffer ab = a.buffer();
                        blas().dgetrfNoPivot(96, 96, ab, 96);
                        assertResidual(a, a.readBack(ab).unitLower().times(a.readBack(ab).upper()), "concurrent LU");
                    }
                    return null;
                }));
            }
            for (final Future<?> f : futures)
            {
                f.get();
            }
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    /** Unit-diagonal integer L (entries -1, 0, 1) and U (diagonal 1, entries -2..2), so A = LU and its LU are exact. */
    private static void integerFactors(final Random random, final Dense l, final Dense u)
    {
        final int n = l.rows;
        for (int j = 0; j < n; j++)
        {
            l.set(j, j, 1);
            u.set(j, j, 1);
            for (int i = j + 1; i < n; i++)
            {
                l.set(i, j, random.nextInt(3) - 1);
                u.set(j, i, random.nextInt(5) - 2);
            }
        }
    }

    /** Fails unless ||expected - actual||max is within a small multiple of n·eps·||expected||max. */
    private static void assertResidual(final Dense expected, final Dense actual, final String what)
    {
        final int n = Math.max(expected.rows, expected.cols);
        actual.assertNear(expected, 4 * n * EPS * Math.max(1, expected.maxAbs()), what + ": residual");
    }

    private static Dense stored(final Dense matrix, final int extraRows)
    {
        final Dense s = new Dense(matrix.rows, matrix.cols, matrix.rows + extraRows);
        for (int j = 0; j < matrix.cols; j++)
        {
            for (int i = 0; i < matrix.rows; i++)
            {
                s.set(i, j, matrix.get(i, j));
            }
        }
        return s;
    }

    private static ByteBuffer readOnly(final ByteBuffer buffer)
    {
        return buffer.asReadOnlyBuffer().order(ByteOrder.nativeOrder());
    }

    private static void assertMessage(final String fragment, final Runnable call)
    {
        final RuntimeException e = assertThrows(RuntimeException.class, call::run);
        assertTrue(e.getMessage().contains(fragment), "message '" + e.getMessage() + "' lacks '" + fragment + "'");
    }
}
