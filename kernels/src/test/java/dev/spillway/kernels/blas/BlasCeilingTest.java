package dev.spillway.kernels.blas;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

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

    /** Fails at every call from the {@code from}-th on: 1 fails a warm-up, 3 (after two warm-ups) a timed call. */
    @ParameterizedTest(name = "failing from call {0}")
    @ValueSource(ints = {1, 3})
    void aThreadThatFailsIsReportedNotWaitedFor(final int from)
    {
        final JavaBlas java = new JavaBlas();
        final AtomicInteger calls = new AtomicInteger();
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
                if (calls.incrementAndGet() >= from)
                {
                    throw new UnsupportedOperationException("no dgemm here");
                }
                java.dgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
            }
        };
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> BlasCeiling.gflops(failing, 8, 2, 1));
        assertTrue(e.getMessage().contains("no dgemm here"), e.getMessage());
    }
}
