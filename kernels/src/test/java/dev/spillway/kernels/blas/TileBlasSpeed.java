package dev.spillway.kernels.blas;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;

/**
 * Prints single-thread GFLOP/s of dgemm, dgetrfNoPivot and dgetrf on 1024 tiles (best of 5; the LU input is
 * diagonally dominant, so dgetrf swaps no rows). A measurement, not a check:
 * runs only with {@code -Dspillway.blas.speed=true}, for example
 * {@code OPENBLAS_CORETYPE=SkylakeX mvn -o -q -pl kernels test -Dtest=TileBlasSpeed -Dspillway.blas.speed=true}.
 */
@EnabledIfSystemProperty(named = "spillway.blas.speed", matches = "true")
class TileBlasSpeed
{
    private static final int N = 1024;
    private static final int REPEATS = 5;

    @Test
    void openBlas()
    {
        final OpenBlas blas = OpenBlas.load();
        System.out.println(blas.description() + ", OPENBLAS_CORETYPE=" + System.getenv("OPENBLAS_CORETYPE"));
        measure(blas);
    }

    @Test
    void javaBlas()
    {
        measure(new JavaBlas());
    }

    private static void measure(final TileBlas blas)
    {
        final ByteBuffer a = random(1, false);
        final ByteBuffer b = random(2, false);
        final ByteBuffer c = random(3, false);
        final ByteBuffer source = random(4, true);
        final ByteBuffer lu = ByteBuffer.allocateDirect(source.capacity()).order(ByteOrder.nativeOrder());
        long gemm = Long.MAX_VALUE;
        long factor = Long.MAX_VALUE;
        long pivoted = Long.MAX_VALUE;
        final int[] ipiv = new int[N];
        for (int r = 0; r < REPEATS; r++)
        {
            final long t0 = System.nanoTime();
            blas.dgemm(false, false, N, N, N, 1, a, N, b, N, 0, c, N);
            gemm = Math.min(gemm, System.nanoTime() - t0);
            lu.clear().put(source.clear());
            final long t1 = System.nanoTime();
            blas.dgetrfNoPivot(N, N, lu, N);
            factor = Math.min(factor, System.nanoTime() - t1);
            lu.clear().put(source.clear());
            final long t2 = System.nanoTime();
            blas.dgetrf(N, N, lu, N, ipiv);
            pivoted = Math.min(pivoted, System.nanoTime() - t2);
        }
        final double luFlops = 2.0 / 3 * N * N * N;
        System.out.printf("%s %d: dgemm %.1f GFLOP/s, dgetrfNoPivot %.1f GFLOP/s, dgetrf %.1f GFLOP/s%n", blas.name(),
            N, 2.0 * N * N * N / gemm, luFlops / factor, luFlops / pivoted);
    }

    private static ByteBuffer random(final long seed, final boolean dominant)
    {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(N * N * Double.BYTES).order(ByteOrder.nativeOrder());
        final Random random = new Random(seed);
        for (int i = 0; i < N * N; i++)
        {
            buffer.putDouble(i * Double.BYTES, dominant && i % (N + 1) == 0 ? N : random.nextDouble() - 0.5);
        }
        return buffer;
    }
}
