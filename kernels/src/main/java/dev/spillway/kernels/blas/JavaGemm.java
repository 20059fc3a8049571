package dev.spillway.kernels.blas;

import java.nio.DoubleBuffer;
import java.util.Arrays;

/**
 * Pure-Java dgemm in the GotoBLAS shape: blocks of op(A) and alpha·op(B) are packed into arrays of MR-row and
 * NR-column strips, and a register-blocked MR×NR kernel walks them. Operands are column-major with offsets.
 */
final class JavaGemm
{
    private static final int MR = 4;
    private static final int NR = 4;
    private static final int KC = 256;
    private static final int MC = 128;
    private static final int NC = 1024;

    private final double[] packedA;
    private final double[] packedB;
    private final double[] line;
    private final double[] tile = new double[MR * NR];

    /** Scratch for products of at most m×k by k×n. */
    JavaGemm(final int m, final int n, final int k)
    {
        final int kc = Math.min(KC, k);
        packedA = new double[roundUp(Math.min(MC, m), MR) * kc];
        packedB = new double[roundUp(Math.min(NC, n), NR) * kc];
        line = new double[Math.max(Math.min(MC, m), Math.max(Math.min(NC, n), kc))];
    }

    /** C := alpha·op(A)·op(B) + beta·C on the m×n block of {@code c} from {@code cOff}; m, n, k within scratch. */
    void gemm(
        final boolean transA, final boolean transB, final int m, final int n, final int k, final double alpha,
        final DoubleBuffer a, final int aOff, final int lda, final DoubleBuffer b, final int bOff, final int ldb,
        final double beta, final DoubleBuffer c, final int cOff, final int ldc)
    {
        if (m == 0 || n == 0)
        {
            return;
        }
        scale(m, n, beta, c, cOff, ldc);
        if (alpha == 0 || k == 0)
        {
            return;
        }
        for (int j0 = 0; j0 < n; j0 += NC)
        {
            final int nc = Math.min(NC, n - j0);
            for (int p0 = 0; p0 < k; p0 += KC)
            {
                final int kc = Math.min(KC, k - p0);
                packB(transB, alpha, b, bOff, ldb, p0, kc, j0, nc);
                for (int i0 = 0; i0 < m; i0 += MC)
                {
                    final int mc = Math.min(MC, m - i0);
                    packA(transA, a, aOff, lda, i0, mc, p0, kc);
                    block(mc, nc, kc, c, cOff + i0 + j0 * ldc, ldc);
                }
            }
        }
    }

    /** C := beta·C on the m×n block at {@code cOff}; beta = 0 clears C, NaNs included. */
    static void scale(final int m, final int n, final double beta, final DoubleBuffer c, final int cOff, final int ldc)
    {
        if (beta == 1)
        {
            return;
        }
        final double[] column = new double[m];
        for (int j = 0; j < n; j++)
        {
            final int start = cOff + j * ldc;
            if (beta == 0)
            {
                Arrays.fill(column, 0.0);
            }
            else
            {
                c.get(start, column, 0, m);
                for (int i = 0; i < m; i++)
                {
                    column[i] *= beta;
                }
            }
            c.put(start, column, 0, m);
        }
    }

    /** Packs rows i0..i0+mc, columns p0..p0+kc of op(A) into MR-row strips, zero-padding the last. */
    private void packA(
        final boolean transA, final DoubleBuffer a, final int aOff, final int lda, final int i0, final int mc,
        final int p0, final int kc)
    {
        final double[] dst = packedA;
        final double[] tmp = line;
        if (transA)
        {
            for (int i = 0; i < mc; i++)
            {
                a.get(aOff + p0 + (i0 + i) * lda, tmp, 0, kc);
                final int base = (i / MR) * MR * kc + i % MR;
                for (int p = 0; p < kc; p++)
                {
                    dst[base + p * MR] = tmp[p];
                }
            }
        }
        else
        {
            for (int p = 0; p < kc; p++)
            {
                a.get(aOff + i0 + (p0 + p) * lda, tmp, 0, mc);
                for (int i = 0; i < mc; i++)
                {
                    dst[(i / MR) * MR * kc + p * MR + i % MR] = tmp[i];
                }
            }
        }
        final int padded = roundUp(mc, MR);
        for (int i = mc; i < padded; i++)
        {
            final int base = (i / MR) * MR * kc + i % MR;
            for (int p = 0; p < kc; p++)
            {
                dst[base + p * MR] = 0;
            }
        }
    }

    /** Packs alpha times rows p0..p0+kc, columns j0..j0+nc of op(B) into NR-column strips, zero-padding the last. */
    private void packB(
        final boolean transB, final double alpha, final DoubleBuffer b, final int bOff, final int ldb, final int p0,
        final int kc, final int j0, final int nc)
    {
        final double[] dst = packedB;
        final double[] tmp = line;
        if (transB)
        {
            for (int p = 0; p < kc; p++)
            {
                b.get(bOff + j0 + (p0 + p) * ldb, tmp, 0, nc);
                for (int j = 0; j < nc; j++)
                {
                    dst[(j / NR) * NR * kc + p * NR + j % NR] = alpha * tmp[j];
                }
            }
        }
        else
        {
            for (int j = 0; j < nc; j++)
            {
                b.get(bOff + p0 + (j0 + j) * ldb, tmp, 0, kc);
                final int base = (j / NR) * NR * kc + j % NR;
                for (int p = 0; p < kc; p++)
                {
                    dst[base + p * NR] = alpha * tmp[p];
                }
            }
        }
        final int padded = roundUp(nc, NR);
        for (int j = nc; j < padded; j++)
        {
            final int base = (j / NR) * NR * kc + j % NR;
            for (int p = 0; p < kc; p++)
            {
                dst[base + p * NR] = 0;
            }
        }
    }

    /** C(mc×nc) += packedA·packedB, one MR×NR tile at a time. */
    private void block(final int mc, final int nc, final int kc, final DoubleBuffer c, final int cOff, final int ldc)
    {
        final double[] tile = this.tile;
        for (int j = 0; j < nc; j += NR)
        {
            for (int i = 0; i < mc; i += MR)
            {
                kernel(kc, packedA, i * kc, packedB, j * kc, tile);
                final int rows = Math.min(MR, mc - i);
                final int cols = Math.min(NR, nc - j);
                for (int jj = 0; jj < cols; jj++)
                {
                    final int at = cOff + i + (j + jj) * ldc;
                    for (int ii = 0; ii < rows; ii++)
                    {
                        c.put(at + ii, c.get(at + ii) + tile[ii + jj * MR]);
                    }
                }
            }
        }
    }

    /** tile := the MR×NR product of one packed A strip and one packed B strip over kc. */
    private static void kernel(
        final int kc, final double[] a, final int aStart, final double[] b, final int bStart, final double[] tile)
    {
        double c00 = 0, c10 = 0, c20 = 0, c30 = 0;
        double c01 = 0, c11 = 0, c21 = 0, c31 = 0;
        double c02 = 0, c12 = 0, c22 = 0, c32 = 0;
        double c03 = 0, c13 = 0, c23 = 0, c33 = 0;
        int ia = aStart;
        int ib = bStart;
        for (int p = 0; p < kc; p++, ia += MR, ib += NR)
        {
            final double a0 = a[ia];
            final double a1 = a[ia + 1];
            final double a2 = a[ia + 2];
            final double a3 = a[ia + 3];
            final double b0 = b[ib];
            final double b1 = b[ib + 1];
            final double b2 = b[ib + 2];
            final double b3 = b[ib + 3];
            c00 = Math.fma(a0, b0, c00);
            c10 = Math.fma(a1, b0, c10);
            c20 = Math.fma(a2, b0, c20);
            c30 = Math.fma(a3, b0, c30);
            c01 = Math.fma(a0, b1, c01);
            c11 = Math.fma(a1, b1, c11);
            c21 = Math.fma(a2, b1, c21);
            c31 = Math.fma(a3, b1, c31);
            c02 = Math.fma(a0, b2, c02);
            c12 = Math.fma(a1, b2, c12);
            c22 = Math.fma(a2, b2, c22);
            c32 = Math.fma(a3, b2, c32);
            c03 = Math.fma(a0, b3, c03);
            c13 = Math.fma(a1, b3, c13);
            c23 = Math.fma(a2, b3, c23);
            c33 = Math.fma(a3, b3, c33);
        }
        tile[0] = c00;
        tile[1] = c10;
        tile[2] = c20;
        tile[3] = c30;
        tile[4] = c01;
        tile[5] = c11;
        tile[6] = c21;
        tile[7] = c31;
        tile[8] = c02;
        tile[9] = c12;
        tile[10] = c22;
        tile[11] = c32;
        tile[12] = c03;
        tile[13] = c13;
        tile[14] = c23;
        tile[15] = c33;
    }

    private static int roundUp(final int value, final int multiple)
    {
        return (value + multiple - 1) / multiple * multiple;
    }
}
