package dev.spillway.examples;

/**
 * A deterministic table generated on the fly from splitmix64: feature {@code j} of a row is
 * {@code 1 + j % 5 + u + w(j) * f}, where {@code u} is noise per value, {@code f} a factor shared by the row's
 * features, both uniform on [-1, 1), and the loading {@code w(j) = 2 j / columns} grows with the column. Two
 * instances with the same arguments yield the same rows.
 */
public final class SyntheticRows implements RowSource
{
    private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private final long rows;
    private final int columns;
    private long state;
    private long produced;

    /**
     * @param rows    how many rows the stream holds.
     * @param columns values per row.
     * @param seed    the stream's seed.
     */
    public SyntheticRows(final long rows, final int columns, final long seed)
    {
        if (rows < 0 || columns <= 0)
        {
            throw new IllegalArgumentException("rows must be >= 0 and columns > 0, got rows " + rows +
                ", columns " + columns);
        }
        this.rows = rows;
        this.columns = columns;
        this.state = seed;
    }

    @Override
    public int columns()
    {
        return columns;
    }

    @Override
    public boolean next(final double[] row)
    {
        if (produced == rows)
        {
            return false;
        }
        produced++;
        final double factor = nextUniform();
        for (int j = 0; j < columns; j++)
        {
            row[j] = 1 + j % 5 + nextUniform() + (2.0 * j / columns) * factor;
        }
        return true;
    }

    /** @return the next value on [-1, 1) with 53 random bits. */
    private double nextUniform()
    {
        state += GOLDEN_GAMMA;
        long z = state;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return (z >>> 11) * 0x1.0p-52 - 1.0;
    }
}
