package dev.spillway.kernels.blas;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;

/** Argument checks shared by every {@link TileBlas}, and buffer views at a matrix element. */
final class TileArgs
{
    private TileArgs()
    {
    }

    static void dgemm(
        final boolean transA, final boolean transB, final int m, final int n, final int k, final ByteBuffer a,
        final int lda, final ByteBuffer b, final int ldb, final ByteBuffer c, final int ldc)
    {
        dimension("m", m);
        dimension("n", n);
        dimension("k", k);
        matrix("a", a, transA ? k : m, transA ? m : k, lda, false);
        matrix("b", b, transB ? n : k, transB ? k : n, ldb, false);
        matrix("c", c, m, n, ldc, true);
    }

    static void dtrsm(
        final boolean left, final int m, final int n, final ByteBuffer a, final int lda, final ByteBuffer b,
        final int ldb)
    {
        dimension("m", m);
        dimension("n", n);
        final int order = left ? m : n;
        matrix("a", a, order, order, lda, false);
        matrix("b", b, m, n, ldb, true);
    }

    static void dgetrf(final int m, final int n, final ByteBuffer a, final int lda)
    {
        dimension("m", m);
        dimension("n", n);
        matrix("a", a, m, n, lda, true);
    }

    private static void dimension(final String name, final int value)
    {
        if (value < 0)
        {
            throw new IllegalArgumentException(name + "=" + value + " is negative");
        }
    }

    /** Checks that {@code buffer} can hold a rows×cols column-major matrix with leading dimension {@code ld}. */
    private static void matrix(
        final String name, final ByteBuffer buffer, final int rows, final int cols, final int ld, final boolean written)
    {
        if (buffer == null)
        {
            throw new NullPointerException(name + " is null");
        }
        if (!buffer.isDirect())
        {
            throw new IllegalArgumentException(name + " is not a direct buffer");
        }
        if (written && buffer.isReadOnly())
        {
            throw new IllegalArgumentException(name + " is read-only but is written");
        }
        if (ld < Math.max(1, rows))
        {
            throw new IllegalArgumentException("ld" + name + "=" + ld + " is less than max(1, " + rows + ")");
        }
        if (rows > 0 && cols > 0)
        {
            final long needed = ((long)ld * (cols - 1) + rows) * Double.BYTES;
            if (needed > buffer.capacity())
            {
                throw new IllegalArgumentException(name + " holds " + buffer.capacity() + " bytes but a " + rows + "x" +
                    cols + " matrix with leading dimension " + ld + " needs " + needed);
            }
        }
    }

    static void pivots(final int[] ipiv, final int count)
    {
        if (ipiv == null)
        {
            throw new NullPointerException("ipiv is null");
        }
        if (ipiv.length < count)
        {
            throw new IllegalArgumentException("ipiv has " + ipiv.length + " entries but needs " + count);
        }
    }

    /** @return the buffer from element ({@code row}, {@code col}) on, for passing a sub-block. */
    static ByteBuffer at(final ByteBuffer buffer, final int ld, final int row, final int col)
    {
        final int offset = (row + col * ld) * Double.BYTES;
        return buffer.slice(offset, buffer.capacity() - offset);
    }

    /** @return a native-order view of the whole buffer from absolute index 0. */
    static DoubleBuffer doubles(final ByteBuffer buffer)
    {
        return buffer.duplicate().clear().order(ByteOrder.nativeOrder()).asDoubleBuffer();
    }
}
