package dev.spillway.kernels.blas;

import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;

/**
 * LU by recursive halving of the columns (LAPACK {@code dgetrf2}'s shape): the left half is factored, the right
 * half gets a triangular solve and a {@code dgemm} from the given {@link TileBlas}, then the trailing block is
 * factored. Narrow panels are factored in Java on an array copy. Pivoting picks the first largest magnitude, as
 * LAPACK does.
 */
final class RecursiveLu
{
    /** Below this order a triangular solve goes to dtrsm; above it, mostly to dgemm (OpenBLAS's dtrsm is slow). */
    private static final int SOLVE_BASE = 64;

    private final TileBlas blas;
    private final int panelWidth;

    RecursiveLu(final TileBlas blas, final int panelWidth)
    {
        this.blas = blas;
        this.panelWidth = panelWidth;
    }

    /** Factors the m×n matrix A in place; with {@code ipiv == null} without pivoting. Arguments are checked. */
    void factor(final int m, final int n, final ByteBuffer a, final int lda, final int[] ipiv)
    {
        if (m > 0 && n > 0)
        {
            factor(m, n, a, lda, ipiv, 0);
        }
    }

    /** Factors the block whose top-left element is the diagonal entry {@code first} of the whole matrix. */
    private void factor(final int m, final int n, final ByteBuffer a, final int lda, final int[] ipiv, final int first)
    {
        final int k = Math.min(m, n);
        if (k <= panelWidth)
        {
            panel(m, n, a, lda, ipiv, first);
            return;
        }
        final int n1 = k / 2;
        final int n2 = n - n1;
        final ByteBuffer a12 = TileArgs.at(a, lda, 0, n1);
        final ByteBuffer a22 = TileArgs.at(a, lda, n1, n1);
        factor(m, n1, a, lda, ipiv, first);
        if (ipiv != null)
        {
            swapRows(a, lda, n1, n2, ipiv, first, first, first + n1);
        }
        solveUnitLower(n1, n2, a, lda, a12);
        blas.dgemm(false, false, m - n1, n2, n1, -1, TileArgs.at(a, lda, n1, 0), lda, a12, lda, 1, a22, lda);
        factor(m - n1, n2, a22, lda, ipiv, first + n1);
        if (ipiv != null)
        {
            swapRows(a, lda, 0, n1, ipiv, first, first + n1, first + k);
        }
    }

    /** B := L⁻¹·B for the unit lower k×k triangle L of {@code l} and the k×n block {@code b}, mostly in dgemm. */
    private void solveUnitLower(final int k, final int n, final ByteBuffer l, final int ld, final ByteBuffer b)
    {
        if (k <= SOLVE_BASE)
        {
            blas.dtrsm(true, true, false, true, k, n, 1, l, ld, b, ld);
            return;
        }
        final int k1 = k / 2;
        final ByteBuffer b2 = TileArgs.at(b, ld, k1, 0);
        solveUnitLower(k1, n, l, ld, b);
        blas.dgemm(false, false, k - k1, n, k1, -1, TileArgs.at(l, ld, k1, 0), ld, b, ld, 1, b2, ld);
        solveUnitLower(k - k1, n, TileArgs.at(l, ld, k1, k1), ld, b2);
    }

    /**
     * Applies the row interchanges ipiv[from..to) to {@code cols} columns from {@code col} of the block whose first row
     * is row {@code first} of the whole matrix.
     */
    private static void swapRows(
        final ByteBuffer a, final int lda, final int col, final int cols, final int[] ipiv, final int first,
        final int from, final int to)
    {
        int rows = 0;
        for (int i = from; i < to; i++)
        {
            rows = Math.max(rows, ipiv[i] - first + 1);
        }
        final DoubleBuffer view = TileArgs.doubles(a);
        final double[] column = new double[rows];
        for (int j = col; j < col + cols; j++)
        {
            view.get(j * lda, column, 0, rows);
            for (int i = from; i < to; i++)
            {
                final int r = i - first;
                final int p = ipiv[i] - first;
                final double t = column[r];
                column[r] = column[p];
                column[p] = t;
            }
            view.put(j * lda, column, 0, rows);
        }
    }

    /**
     * LU of an m×n block with min(m, n) at most the panel width. With pivoting it is unblocked on an array copy of
     * the block. Without, only the leading square is, and the rest of L (or U) follows from one triangular solve.
     */
    private void panel(final int m, final int n, final ByteBuffer a, final int lda, final int[] ipiv, final int first)
    {
        if (ipiv != null)
        {
            unblocked(m, n, a, lda, ipiv, first);
            return;
        }
        final int k = Math.min(m, n);
        unblocked(k, k, a, lda, null, first);
        if (m > k)
        {
            blas.dtrsm(false, false, false, false, m - k, k, 1, a, lda, TileArgs.at(a, lda, k, 0), lda);
        }
        if (n > k)
        {
            blas.dtrsm(true, true, false, true, k, n - k, 1, a, lda, TileArgs.at(a, lda, 0, k), lda);
        }
    }

    /** Unblocked LU of an m×n block on an array copy; pivot rows go to ipiv[first..] unless it is null. */
    private static void unblocked(
        final int m, final int n, final ByteBuffer a, final int lda, final int[] ipiv, final int first)
    {
        final DoubleBuffer view = TileArgs.doubles(a);
        final double[] p = new double[m * n];
        for (int j = 0; j < n; j++)
        {
            view.get(j * lda, p, j * m, m);
        }
        final int k = Math.min(m, n);
        for (int j = 0; j < k; j++)
        {
            final int diagonal = j + j * m;
            if (ipiv != null)
            {
                int best = j;
                double max = Math.abs(p[diagonal]);
                for (int i = j + 1; i < m; i++)
                {
                    final double v = Math.abs(p[i + j * m]);
                    if (v > max)
                    {
                        max = v;
                        best = i;
                    }
                }
                ipiv[first + j] = first + best;
                if (best != j)
                {
                    for (int c = 0; c < n; c++)
                    {
                        final double t = p[j + c * m];
                        p[j + c * m] = p[best + c * m];
                        p[best + c * m] = t;
                    }
                }
            }
            final double pivot = p[diagonal];
            if (pivot == 0)
            {
                throw new ArithmeticException("LU: the pivot in column " + (first + j) + " is exactly zero");
            }
            if (Math.abs(pivot) >= Double.MIN_NORMAL)
            {
                final double r = 1 / pivot;
                for (int i = j + 1; i < m; i++)
                {
                    p[i + j * m] *= r;
                }
            }
            else
            {
                for (int i = j + 1; i < m; i++)
                {
                    p[i + j * m] /= pivot;
                }
            }
            for (int c = j + 1; c < n; c++)
            {
                final double u = p[j + c * m];
                if (u != 0)
                {
                    final int col = c * m;
                    for (int i = j + 1; i < m; i++)
                    {
                        p[i + col] -= p[i + j * m] * u;
                    }
                }
            }
        }
        for (int j = 0; j < n; j++)
        {
            view.put(j * lda, p, j * m, m);
        }
    }
}
