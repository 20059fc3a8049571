package dev.spillway.kernels.blas;

import java.nio.DoubleBuffer;

/**
 * Pure-Java triangular solve with alpha = 1: the triangle is halved recursively, off-diagonal blocks go through
 * {@link JavaGemm}, and small diagonal blocks are solved on array copies.
 */
final class JavaTrsm
{
    private static final int BASE = 32;

    private final boolean left;
    private final boolean lower;
    private final boolean transA;
    private final boolean unit;
    private final DoubleBuffer a;
    private final int lda;
    private final DoubleBuffer b;
    private final int ldb;

    JavaTrsm(
        final boolean left, final boolean lower, final boolean transA, final boolean unit, final DoubleBuffer a,
        final int lda, final DoubleBuffer b, final int ldb)
    {
        this.left = left;
        this.lower = lower;
        this.transA = transA;
        this.unit = unit;
        this.a = a;
        this.lda = lda;
        this.b = b;
        this.ldb = ldb;
    }

    /** Overwrites the m×n block of B at {@code bOff} with the solution for the triangle at {@code aOff}. */
    void solve(final int m, final int n, final int aOff, final int bOff)
    {
        final int t = left ? m : n;
        if (t <= BASE)
        {
            if (left)
            {
                solveLeft(m, n, triangle(t, aOff), bOff);
            }
            else
            {
                solveRight(m, n, triangle(t, aOff), bOff);
            }
            return;
        }
        final int t1 = t / 2;
        final int t2 = t - t1;
        final int a22 = aOff + t1 + t1 * lda;
        final int offDiagonal = lower ? aOff + t1 : aOff + t1 * lda;
        final boolean effectiveLower = lower != transA;
        if (left)
        {
            final int b2 = bOff + t1;
            final JavaGemm gemm = new JavaGemm(t2, n, t2);
            if (effectiveLower)
            {
                solve(t1, n, aOff, bOff);
                gemm.gemm(transA, false, t2, n, t1, -1, a, offDiagonal, lda, b, bOff, ldb, 1, b, b2, ldb);
                solve(t2, n, a22, b2);
            }
            else
            {
                solve(t2, n, a22, b2);
                gemm.gemm(transA, false, t1, n, t2, -1, a, offDiagonal, lda, b, b2, ldb, 1, b, bOff, ldb);
                solve(t1, n, aOff, bOff);
            }
        }
        else
        {
            final int b2 = bOff + t1 * ldb;
            final JavaGemm gemm = new JavaGemm(m, t2, t2);
            if (effectiveLower)
            {
                solve(m, t2, a22, b2);
                gemm.gemm(false, transA, m, t1, t2, -1, b, b2, ldb, a, offDiagonal, lda, 1, b, bOff, ldb);
                solve(m, t1, aOff, bOff);
            }
            else
            {
                solve(m, t1, aOff, bOff);
                gemm.gemm(false, transA, m, t2, t1, -1, b, bOff, ldb, a, offDiagonal, lda, 1, b, b2, ldb);
                solve(m, t2, a22, b2);
            }
        }
    }

    /** @return op(A) of the t×t diagonal block at {@code aOff} as a full column-major array. */
    private double[] triangle(final int t, final int aOff)
    {
        final double[] stored = new double[t * t];
        for (int j = 0; j < t; j++)
        {
            a.get(aOff + j * lda, stored, j * t, t);
        }
        if (!transA)
        {
            return stored;
        }
        final double[] op = new double[t * t];
        for (int j = 0; j < t; j++)
        {
            for (int i = 0; i < t; i++)
            {
                op[i + j * t] = stored[j + i * t];
            }
        }
        return op;
    }

    /** op(A)·X = B column by column, op(A) = {@code tri} (m×m). */
    private void solveLeft(final int m, final int n, final double[] tri, final int bOff)
    {
        final double[] x = new double[m];
        final boolean forward = lower != transA;
        for (int j = 0; j < n; j++)
        {
            b.get(bOff + j * ldb, x, 0, m);
            if (forward)
            {
                for (int i = 0; i < m; i++)
                {
                    final double xi = unit ? x[i] : x[i] / tri[i + i * m];
                    x[i] = xi;
                    for (int r = i + 1; r < m; r++)
                    {
                        x[r] -= tri[r + i * m] * xi;
                    }
                }
            }
            else
            {
                for (int i = m - 1; i >= 0; i--)
                {
                    final double xi = unit ? x[i] : x[i] / tri[i + i * m];
                    x[i] = xi;
                    for (int r = 0; r < i; r++)
                    {
                        x[r] -= tri[r + i * m] * xi;
                    }
                }
            }
            b.put(bOff + j * ldb, x, 0, m);
        }
    }

    /** X·op(A) = B, op(A) = {@code tri} (n×n), one column of X at a time. */
    private void solveRight(final int m, final int n, final double[] tri, final int bOff)
    {
        final double[] x = new double[m * n];
        for (int j = 0; j < n; j++)
        {
            b.get(bOff + j * ldb, x, j * m, m);
        }
        final boolean backward = lower != transA;
        for (int step = 0; step < n; step++)
        {
            final int j = backward ? n - 1 - step : step;
            final int from = backward ? j + 1 : 0;
            final int to = backward ? n : j;
            for (int l = from; l < to; l++)
            {
                final double t = tri[l + j * n];
                if (t != 0)
                {
                    for (int i = 0; i < m; i++)
                    {
                        x[i + j * m] -= x[i + l * m] * t;
                    }
                }
            }
            if (!unit)
            {
                final double d = tri[j + j * n];
                for (int i = 0; i < m; i++)
                {
                    x[i + j * m] /= d;
                }
            }
        }
        for (int j = 0; j < n; j++)
        {
            b.put(bOff + j * ldb, x, j * m, m);
        }
    }
}
