package dev.spillway.kernels.blas;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;

/**
 * Pure-Java {@link TileBlas}: the fallback when OpenBLAS is missing. Same contract and pivot choice as
 * {@link OpenBlas}, several times slower. Stateless; scratch arrays are allocated per call.
 */
public final class JavaBlas implements TileBlas
{
    private static final int PANEL_WIDTH = 32;

    private final RecursiveLu lu = new RecursiveLu(this, PANEL_WIDTH);

    @Override
    public String name()
    {
        return "java";
    }

    @Override
    public void dgemm(
        final boolean transA, final boolean transB, final int m, final int n, final int k, final double alpha,
        final ByteBuffer a, final int lda, final ByteBuffer b, final int ldb, final double beta, final ByteBuffer c,
        final int ldc)
    {
        TileArgs.dgemm(transA, transB, m, n, k, a, lda, b, ldb, c, ldc);
        new JavaGemm(m, n, k).gemm(transA, transB, m, n, k, alpha, TileArgs.doubles(a), 0, lda,
            TileArgs.doubles(b), 0, ldb, beta, TileArgs.doubles(c), 0, ldc);
    }

    @Override
    public void dtrsm(
        final boolean left, final boolean lower, final boolean transA, final boolean unitDiagonal, final int m,
        final int n, final double alpha, final ByteBuffer a, final int lda, final ByteBuffer b, final int ldb)
    {
        TileArgs.dtrsm(left, m, n, a, lda, b, ldb);
        if (m == 0 || n == 0)
        {
            return;
        }
        final DoubleBuffer bv = TileArgs.doubles(b);
        if (alpha != 1)
        {
            JavaGemm.scale(m, n, alpha, bv, 0, ldb);
        }
        if (alpha != 0)
        {
            new JavaTrsm(left, lower, transA, unitDiagonal, TileArgs.doubles(a), lda, bv, ldb).solve(m, n, 0, 0);
        }
    }

    @Override
    public void dgetrfNoPivot(final int m, final int n, final ByteBuffer a, final int lda)
    {
        TileArgs.dgetrf(m, n, a, lda);
        lu.factor(m, n, a, lda, null);
    }

    @Override
    public void dgetrf(final int m, final int n, final ByteBuffer a, final int lda, final int[] ipiv)
    {
        TileArgs.dgetrf(m, n, a, lda);
        TileArgs.pivots(ipiv, Math.min(m, n));
        lu.factor(m, n, a, lda, ipiv);
    }
}
