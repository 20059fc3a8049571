package dev.spillway.kernels.blas;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(600)
class BlasCeilingTest
{
    @Test
    void measuresAllThreadsTogether() throws InterruptedException
    {
        final double gflops = BlasCeiling.gflops(new JavaBlas(), 64, 2, 3);
        assertTrue(gflops > 0 && Double.isFinite(gflops), "GFLOP/s " + gflops);
    }

    @Test
    void aThreadThatFailsBeforeTheStartIsReportedNotWaitedFor()
    {
        final JavaBlas java = new JavaBlas();
        final TileBlas failing = new TileBlas()
        {
            @Override
            public String name()
            {
                return "failing";
            }

            @Override
            public void dtrsm(final boolean left, final boolean lower, final boolean transA,
                final boolean unitDiagonal, final int m, final int n, final double alpha, final ByteBuffer a,
                final int lda, final ByteBuffer b, final int ldb)
            {
                java.dtrsm(left, lower, transA, unitDiagonal, m, n, alpha, a, lda, b, ldb);
            }

            @Override
            public void dgetrfNoPivot(final int m, final int n, final ByteBuffer a, final int lda)
            {
                java.dgetrfNoPivot(m, n, a, lda);
            }

            @Override
            public void dgetrf(final int m, final int n, final ByteBuffer a, final int lda, final int[] ipiv)
            {
                java.dgetrf(m, n, a, lda, ipiv);
            }

            @Override
            public void dgemm(final boolean transA, final boolean transB, final int m, final int n, final int k,
                final double alpha, final ByteBuffer a, final int lda, final ByteBuffer b, final int ldb,
                final double beta, final ByteBuffer c, final int ldc)
            {
                throw new UnsupportedOperationException("no dgemm here");
            }
        };
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> BlasCeiling.gflops(failing, 8, 2, 1));
        assertTrue(e.getMessage().contains("no dgemm here"), e.getMessage());
    }
}
