package dev.spillway.kernels.stencil;

/**
 * Picks block counts for a grid when only its size is given. Starting from one block, it splits the axis whose blocks
 * are longest, one more block at a time, until blocks take at most {@link #MAX_BLOCK_BYTES} and there are at least two
 * blocks per worker. Splitting the longest edge keeps blocks near cubic, which keeps ghost planes small; each split
 * shrinks a block by at most half, so where the size bound decides, blocks end between 32 and 64 MiB.
 */
final class BlockCounts
{
    /** The largest block chosen: big enough that one task's work dwarfs its scheduling, small enough to spill. */
    static final long MAX_BLOCK_BYTES = 64L << 20;
    private static final int BLOCKS_PER_WORKER = 2;

    private BlockCounts()
    {
    }

    /** @return block counts along x, y and z for an x×y×z grid run by {@code workers} workers. */
    static int[] choose(final int x, final int y, final int z, final int workers)
    {
        final int[] cells = {x, y, z};
        for (int a = 0; a < 3; a++)
        {
            if (cells[a] < 1)
            {
                throw new IllegalArgumentException("grid size along " + "xyz".charAt(a) + " must be at least 1, got " +
                    cells[a]);
            }
        }
        if (workers < 1)
        {
            throw new IllegalArgumentException("workers must be at least 1, got " + workers);
        }
        final int[] counts = {1, 1, 1};
        while (blockBytes(cells, counts) > MAX_BLOCK_BYTES ||
            (long)counts[0] * counts[1] * counts[2] < (long)BLOCKS_PER_WORKER * workers)
        {
            int longest = -1;
            for (int a = 0; a < 3; a++)
            {
                if (counts[a] < cells[a] && (longest < 0 || edge(cells, counts, a) > edge(cells, counts, longest)))
                {
                    longest = a;
                }
            }
            if (longest < 0)
            {
                break;
            }
            counts[longest]++;
        }
        return counts;
    }

    private static long edge(final int[] cells, final int[] counts, final int axis)
    {
        return ((long)cells[axis] + counts[axis] - 1) / counts[axis];
    }

    private static long blockBytes(final int[] cells, final int[] counts)
    {
        return Double.BYTES * edge(cells, counts, 0) * edge(cells, counts, 1) * edge(cells, counts, 2);
    }
}
