package dev.spillway.kernels.stencil;

import dev.spillway.kernels.ResultChecksum;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The stencil computed plainly on the heap, as the independent check of {@link Stencil}: one array per z plane of the
 * whole grid, no tasks, no tiles, no ghosts. Each step sweeps the blocks in block order, each block {@code sweeps}
 * times, reading every neighbour straight from the grid (or the fixed boundary value outside it). Holds grids whose
 * x·y plane fits one array; the heap must hold the grid.
 */
public final class StencilReference
{
    private static final int MAX_PLANE = Integer.MAX_VALUE - 8;

    private final BlockGrid grid;
    private final int nx;
    private final int ny;
    private final int nz;
    private final double[][] planes;

    /** Fills an x×y×z grid, cut into bx×by×bz blocks as {@link Stencil} cuts it, with its initial values. */
    public StencilReference(final int x, final int y, final int z, final int bx, final int by, final int bz)
    {
        grid = new BlockGrid(x, y, z, bx, by, bz);
        if ((long)x * y > MAX_PLANE)
        {
            throw new IllegalArgumentException("an x-y plane of " + x + "x" + y + " cells is too large for one array");
        }
        nx = x;
        ny = y;
        nz = z;
        planes = new double[z][x * y];
        for (int k = 0; k < z; k++)
        {
            for (int j = 0; j < y; j++)
            {
                for (int i = 0; i < x; i++)
                {
                    planes[k][j * x + i] = Relaxation.initial(grid.cellIndex(i, j, k));
                }
            }
        }
    }

    /** Runs {@code steps} steps of {@code sweeps} sweeps per block. */
    public void run(final int sweeps, final int steps)
    {
        for (int s = 0; s < steps; s++)
        {
            for (int b = 0; b < grid.blocks(); b++)
            {
                for (int w = 0; w < sweeps; w++)
                {
                    sweep(b);
                }
            }
        }
    }

    private void sweep(final int b)
    {
        final int x0 = grid.start(b, 0);
        final int y0 = grid.start(b, 1);
        final int z0 = grid.start(b, 2);
        for (int k = z0; k < z0 + grid.extent(b, 2); k++)
        {
            for (int j = y0; j < y0 + grid.extent(b, 1); j++)
            {
                for (int i = x0; i < x0 + grid.extent(b, 0); i++)
                {
                    planes[k][j * nx + i] = Relaxation.update(at(i - 1, j, k), at(i + 1, j, k), at(i, j - 1, k),
                        at(i, j + 1, k), at(i, j, k - 1), at(i, j, k + 1));
                }
            }
        }
    }

    /** @return cell (x, y, z), or the boundary value where it lies outside the grid. */
    private double at(final int x, final int y, final int z)
    {
        if (x < 0)
        {
            return Face.WEST.boundary;
        }
        if (x >= nx)
        {
            return Face.EAST.boundary;
        }
        if (y < 0)
        {
            return Face.SOUTH.boundary;
        }
        if (y >= ny)
        {
            return Face.NORTH.boundary;
        }
        if (z < 0)
        {
            return Face.BELOW.boundary;
        }
        if (z >= nz)
        {
            return Face.ABOVE.boundary;
        }
        return planes[z][y * nx + x];
    }

    /** @return the current value of grid cell (x, y, z). */
    public double value(final int x, final int y, final int z)
    {
        return planes[z][y * nx + x];
    }

    /** @return the {@link ResultChecksum} of the grid as {@link Stencil#results()} holds it: block tiles by tag. */
    public String checksum()
    {
        final ResultChecksum checksum = new ResultChecksum();
        for (int b = 0; b < grid.blocks(); b++)
        {
            final ByteBuffer block = ByteBuffer.allocate(grid.blockCells(b) * Double.BYTES)
                .order(ByteOrder.nativeOrder());
            final int x0 = grid.start(b, 0);
            final int y0 = grid.start(b, 1);
            final int z0 = grid.start(b, 2);
            for (int k = z0; k < z0 + grid.extent(b, 2); k++)
            {
                for (int j = y0; j < y0 + grid.extent(b, 1); j++)
                {
                    for (int i = x0; i < x0 + grid.extent(b, 0); i++)
                    {
                        block.putDouble(planes[k][j * nx + i]);
                    }
                }
            }
            checksum.add(grid.meshTag(b), block.flip());
        }
        return checksum.value();
    }

    /**
     * @return the result checksum that a {@link Stencil} run with these arguments must report, for runs too large to
     *         verify in-process.
     */
    public static String referenceChecksum(final int x, final int y, final int z, final int bx, final int by,
        final int bz, final int sweeps, final int steps)
    {
        final StencilReference reference = new StencilReference(x, y, z, bx, by, bz);
        reference.run(sweeps, steps);
        return reference.checksum();
    }
}
