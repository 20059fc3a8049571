package dev.spillway.ranks;

/**
 * Owner functions: which rank owns a data object. 2-D block-cyclic for matrix tiles, contiguous slabs for a stencil's
 * blocks. Pure functions of their arguments, so every rank computes the same placement.
 */
public final class Owners
{
    private Owners()
    {
    }

    /**
     * @param size ranks.
     * @return the rows of the most nearly square process grid P×Q = size with P ≤ Q.
     */
    public static int gridRows(final int size)
    {
        checkSize(size);
        int p = (int)Math.sqrt(size);
        while (size % p != 0)
        {
            p--;
        }
        return p;
    }

    /**
     * @param row tile row.
     * @param col tile column.
     * @param size ranks.
     * @return the owner of tile (row, col) on the {@link #gridRows} × (size / gridRows) grid, dealt cyclically.
     */
    public static int blockCyclic(final int row, final int col, final int size)
    {
        final int p = gridRows(size);
        final int q = size / p;
        return Math.floorMod(row, p) * q + Math.floorMod(col, q);
    }

    /**
     * @param index block index, 0 to {@code count - 1}, in the order that makes slabs contiguous.
     * @param count blocks.
     * @param size ranks.
     * @return the rank whose contiguous run of {@code count / size} (±1) blocks holds {@code index}.
     */
    public static int slab(final int index, final int count, final int size)
    {
        checkSize(size);
        if (index < 0 || index >= count)
        {
            throw new IllegalArgumentException("block " + index + " is outside 0.." + (count - 1));
        }
        return (int)((long)index * size / count);
    }

    private static void checkSize(final int size)
    {
        if (size < 1)
        {
            throw new IllegalArgumentException("ranks must be at least 1, got " + size);
        }
    }
}
