package dev.spillway.kernels.stencil;

/**
 * A grid of X×Y×Z cells cut into bx×by×bz blocks. Along each axis block i spans cells [i·n/b, (i+1)·n/b), so block
 * edges differ by at most one cell and any count up to n works. Blocks are numbered x fastest, then y, then z, which is
 * also the order of their tags. Inside a block, and in every plane, cells are laid out x fastest.
 */
final class BlockGrid
{
    private static final String[] AXES = {"x", "y", "z"};

    private final int[] cells;
    private final int[] counts;
    private final int blocks;
    private final String tagFormat;

    BlockGrid(final int x, final int y, final int z, final int bx, final int by, final int bz)
    {
        cells = new int[] {x, y, z};
        counts = new int[] {bx, by, bz};
        long largestBlock = Double.BYTES;
        for (int a = 0; a < 3; a++)
        {
            if (cells[a] < 1)
            {
                throw new IllegalArgumentException("grid size along " + AXES[a] + " must be at least 1, got " +
                    cells[a]);
            }
            if (counts[a] < 1 || counts[a] > cells[a])
            {
                throw new IllegalArgumentException("block count along " + AXES[a] + " must be between 1 and the " +
                    "grid's " + cells[a] + " cells, got " + counts[a]);
            }
            largestBlock *= ceilDiv(cells[a], counts[a]);
        }
        if (largestBlock > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("blocks of " + ceilDiv(x, bx) + "x" + ceilDiv(y, by) + "x" +
                ceilDiv(z, bz) + " cells take " + largestBlock + " bytes, over the " + Integer.MAX_VALUE +
                "-byte tile limit: use more blocks");
        }
        final long blockCount = (long)bx * by * bz;
        if (blockCount > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException(bx + "x" + by + "x" + bz + " blocks are too many");
        }
        blocks = (int)blockCount;
        final int width = Integer.toString(Math.max(bx, Math.max(by, bz)) - 1).length();
        tagFormat = "%0" + width + "d,%0" + width + "d,%0" + width + "d";
    }

    private static long ceilDiv(final int n, final int d)
    {
        return ((long)n + d - 1) / d;
    }

    /** @return cells along {@code axis} of the whole grid. */
    int cells(final int axis)
    {
        return cells[axis];
    }

    /** @return the longest edge of any block along {@code axis}. */
    int largestExtent(final int axis)
    {
        return (int)ceilDiv(cells[axis], counts[axis]);
    }

    /** @return blocks along {@code axis}. */
    int count(final int axis)
    {
        return counts[axis];
    }

    int blocks()
    {
        return blocks;
    }

    long totalCells()
    {
        return (long)cells[0] * cells[1] * cells[2];
    }

    /** @return block {@code b}'s index along {@code axis}. */
    int coordinate(final int b, final int axis)
    {
        return switch (axis)
        {
            case 0 -> b % counts[0];
            case 1 -> b / counts[0] % counts[1];
            default -> b / (counts[0] * counts[1]);
        };
    }

    /** @return the first cell of block {@code b} along {@code axis}, in grid coordinates. */
    int start(final int b, final int axis)
    {
        return boundary(axis, coordinate(b, axis));
    }

    /** @return cells of block {@code b} along {@code axis}. */
    int extent(final int b, final int axis)
    {
        final int i = coordinate(b, axis);
        return boundary(axis, i + 1) - boundary(axis, i);
    }

    private int boundary(final int axis, final int i)
    {
        return (int)((long)i * cells[axis] / counts[axis]);
    }

    /** @return cells in block {@code b}. */
    int blockCells(final int b)
    {
        return extent(b, 0) * extent(b, 1) * extent(b, 2);
    }

    /** @return cells in block {@code b}'s plane parallel to {@code face}. */
    int planeCells(final int b, final Face face)
    {
        return blockCells(b) / extent(b, face.axis);
    }

    /** @return the block across {@code face} of block {@code b}, or -1 where that face is the grid's boundary. */
    int neighbour(final int b, final Face face)
    {
        final int i = coordinate(b, face.axis) + face.direction;
        if (i < 0 || i >= counts[face.axis])
        {
            return -1;
        }
        final int stride = face.axis == 0 ? 1 : face.axis == 1 ? counts[0] : counts[0] * counts[1];
        return b + face.direction * stride;
    }

    /** @return {@code mesh[k,j,i]}, zero-padded so that tag order is block order. */
    String meshTag(final int b)
    {
        return "mesh[" + position(b) + "]";
    }

    /** @return {@code ghost[k,j,i]} and the face, for block {@code b}'s copy of its neighbour's layer. */
    String ghostTag(final int b, final Face face)
    {
        return "ghost[" + position(b) + "]" + face.label;
    }

    private String position(final int b)
    {
        return String.format(tagFormat, coordinate(b, 2), coordinate(b, 1), coordinate(b, 0));
    }

    /** @return the index of grid cell (x, y, z), x fastest. */
    long cellIndex(final int x, final int y, final int z)
    {
        return ((long)z * cells[1] + y) * cells[0] + x;
    }
}
