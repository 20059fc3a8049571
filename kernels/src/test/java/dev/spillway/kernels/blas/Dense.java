package dev.spillway.kernels.blas;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/** A column-major test matrix on a double[] with naive reference kernels; padding rows hold a sentinel. */
final class Dense
{
    static final double PAD = -777.25;

    final int rows;
    final int cols;
    final int ld;
    final double[] data;

    Dense(final int rows, final int cols, final int ld)
    {
        this.rows = rows;
        this.cols = cols;
        this.ld = ld;
        this.data = new double[Math.max(1, ld * cols)];
        Arrays.fill(data, PAD);
        for (int j = 0; j < cols; j++)
        {
            for (int i = 0; i < rows; i++)
            {
                set(i, j, 0);
            }
        }
    }

    /** @return entries uniform in [-1, 1). */
    static Dense random(final int rows, final int cols, final int ld, final Random random)
    {
        final Dense d = new Dense(rows, cols, ld);
        for (int j = 0; j < cols; j++)
        {
            for (int i = 0; i < rows; i++)
            {
                d.set(i, j, 2 * random.nextDouble() - 1);
            }
        }
        return d;
    }

    /** @return a random matrix whose diagonal dominates its rows and columns. */
    static Dense dominant(final int rows, final int cols, final int ld, final Random random)
    {
        final Dense d = random(rows, cols, ld, random);
        for (int i = 0; i < Math.min(rows, cols); i++)
        {
            d.set(i, i, Math.max(rows, cols) + random.nextDouble());
        }
        return d;
    }

    double get(final int i, final int j)
    {
        return data[i + j * ld];
    }

    void set(final int i, final int j, final double v)
    {
        data[i + j * ld] = v;
    }

    Dense copy()
    {
        final Dense d = new Dense(rows, cols, ld);
        System.arraycopy(data, 0, d.data, 0, data.length);
        return d;
    }

    /** @return a direct native-order buffer with this matrix, padding included, and a non-zero position. */
    ByteBuffer buffer()
    {
        final ByteBuffer b = ByteBuffer.allocateDirect(data.length * Double.BYTES).order(ByteOrder.nativeOrder());
        for (int i = 0; i < data.length; i++)
        {
            b.putDouble(i * Double.BYTES, data[i]);
        }
        b.position(Math.min(b.capacity(), 3 * Double.BYTES));
        return b;
    }

    /** @return the matrix read back from {@code b}; fails if a padding entry changed. */
    Dense readBack(final ByteBuffer b)
    {
        final Dense d = new Dense(rows, cols, ld);
        for (int i = 0; i < data.length; i++)
        {
            d.data[i] = b.getDouble(i * Double.BYTES);
        }
        for (int j = 0; j < cols; j++)
        {
            for (int i = rows; i < ld; i++)
            {
                assertEquals(PAD, d.get(i, j), "padding (" + i + ", " + j + ") was written");
            }
        }
        return d;
    }

    Dense transpose()
    {
        final Dense t = new Dense(cols, rows, Math.max(1, cols));
        for (int j = 0; j < cols; j++)
        {
            for (int i = 0; i < rows; i++)
            {
                t.set(j, i, get(i, j));
            }
        }
        return t;
    }

    /** @return this·other by the textbook triple loop. */
    Dense times(final Dense other)
    {
        final Dense c = new Dense(rows, other.cols, Math.max(1, rows));
        for (int j = 0; j < other.cols; j++)
        {
            for (int i = 0; i < rows; i++)
            {
                double s = 0;
                for (int p = 0; p < cols; p++)
                {
                    s += get(i, p) * other.get(p, j);
                }
                c.set(i, j, s);
            }
        }
        return c;
    }

    double maxAbs()
    {
        double max = 0;
        for (int j = 0; j < cols; j++)
        {
            for (int i = 0; i < rows; i++)
            {
                max = Math.max(max, Math.abs(get(i, j)));
            }
        }
        return max;
    }

    /** Fails unless every entry is within {@code tolerance} of {@code expected}'s. */
    void assertNear(final Dense expected, final double tolerance, final String what)
    {
        assertEquals(expected.rows, rows, what + ": rows");
        assertEquals(expected.cols, cols, what + ": cols");
        for (int j = 0; j < cols; j++)
        {
            for (int i = 0; i < rows; i++)
            {
                final double diff = Math.abs(get(i, j) - expected.get(i, j));
                if (!(diff <= tolerance))
                {
                    fail(what + ": entry (" + i + ", " + j + ") is " + get(i, j) + ", expected " + expected.get(i, j) +
                        " within " + tolerance);
                }
            }
        }
    }

    /** @return the unit lower factor L (rows × min) stored below the diagonal. */
    Dense unitLower()
    {
        final int k = Math.min(rows, cols);
        final Dense l = new Dense(rows, k, Math.max(1, rows));
        for (int j = 0; j < k; j++)
        {
            l.set(j, j, 1);
            for (int i = j + 1; i < rows; i++)
            {
                l.set(i, j, get(i, j));
            }
        }
        return l;
    }

    /** @return the upper factor U (min × cols) stored on and above the diagonal. */
    Dense upper()
    {
        final int k = Math.min(rows, cols);
        final Dense u = new Dense(k, cols, Math.max(1, k));
        for (int j = 0; j < cols; j++)
        {
            for (int i = 0; i <= Math.min(j, k - 1); i++)
            {
                u.set(i, j, get(i, j));
            }
        }
        return u;
    }

    /** Swaps rows i and ipiv[i] for each i in order, as LAPACK's {@code dlaswp} does. */
    Dense permuted(final int[] ipiv, final int count)
    {
        final Dense p = copy();
        for (int i = 0; i < count; i++)
        {
            for (int j = 0; j < cols; j++)
            {
                final double t = p.get(i, j);
                p.set(i, j, p.get(ipiv[i], j));
                p.set(ipiv[i], j, t);
            }
        }
        return p;
    }

    /**
     * Textbook right-looking LU in place, with partial pivoting (first largest magnitude) when {@code ipiv} is not
     * null. Stops at an exactly zero pivot and returns its column, else returns -1.
     */
    int referenceLu(final int[] ipiv)
    {
        for (int j = 0; j < Math.min(rows, cols); j++)
        {
            if (ipiv != null)
            {
                int best = j;
                for (int i = j + 1; i < rows; i++)
                {
                    if (Math.abs(get(i, j)) > Math.abs(get(best, j)))
                    {
                        best = i;
                    }
                }
                ipiv[j] = best;
                for (int c = 0; c < cols; c++)
                {
                    final double t = get(j, c);
                    set(j, c, get(best, c));
                    set(best, c, t);
                }
            }
            if (get(j, j) == 0)
            {
                return j;
            }
            for (int i = j + 1; i < rows; i++)
            {
                set(i, j, get(i, j) / get(j, j));
            }
            for (int c = j + 1; c < cols; c++)
            {
                for (int i = j + 1; i < rows; i++)
                {
                    set(i, c, get(i, c) - get(i, j) * get(j, c));
                }
            }
        }
        return -1;
    }
}
