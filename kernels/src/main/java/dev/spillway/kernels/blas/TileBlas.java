package dev.spillway.kernels.blas;

import java.nio.ByteBuffer;

/**
 * Dense kernels on column-major tiles of doubles held in direct, native-order buffers (absolute index 0; the
 * buffer's position is ignored). Leading dimensions are in doubles. Implementations: {@link OpenBlas} (native, one
 * BLAS thread per calling thread) and {@link JavaBlas} (pure Java). Every method is thread-safe.
 */
public interface TileBlas
{
    /** @return {@code openblas} or {@code java}. */
    String name();

    /** C := alpha·op(A)·op(B) + beta·C, with op(A) m×k, op(B) k×n and C m×n. */
    void dgemm(boolean transA, boolean transB, int m, int n, int k, double alpha, ByteBuffer a, int lda,
        ByteBuffer b, int ldb, double beta, ByteBuffer c, int ldc);

    /**
     * Solves op(A)·X = alpha·B ({@code left}) or X·op(A) = alpha·B (right) for X, overwriting B (m×n).
     * A is triangular: {@code lower} or upper, with a unit diagonal when {@code unitDiagonal}.
     */
    void dtrsm(boolean left, boolean lower, boolean transA, boolean unitDiagonal, int m, int n, double alpha,
        ByteBuffer a, int lda, ByteBuffer b, int ldb);

    /**
     * LU without pivoting of the m×n matrix A in place: L unit lower (below the diagonal), U upper.
     *
     * @throws ArithmeticException naming the column if a pivot is exactly zero.
     */
    void dgetrfNoPivot(int m, int n, ByteBuffer a, int lda);

    /**
     * LU with partial pivoting of the m×n matrix A in place (LAPACK {@code dgetrf}): P·A = L·U.
     *
     * @param ipiv receives min(m, n) 0-based pivot rows: row i was swapped with row ipiv[i], in order.
     * @throws ArithmeticException naming the column if U has an exactly zero diagonal entry.
     */
    void dgetrf(int m, int n, ByteBuffer a, int lda, int[] ipiv);
}
