package dev.spillway.kernels.stencil;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Gauss–Seidel sweeps over one block, in place in its tile's buffer (no copy of the block), in natural order: x
 * fastest, then y, then z. Neighbours outside the block come from the ghost planes, or from the grid's boundary where
 * a face has none. Rows whose y and z neighbours lie in the block (all but the block's outer rows) take a loop with
 * precomputed byte strides and the west neighbour carried in a register; the outer rows gather their neighbour rows
 * into small arrays first.
 */
final class BlockSweep
{
    private static final int B = Double.BYTES;

    private final int nx;
    private final int ny;
    private final int nz;
    private final int sy;
    private final int sz;
    private final ByteBuffer[] ghosts;
    private final double[] south;
    private final double[] north;
    private final double[] below;
    private final double[] above;

    /**
     * @param ghosts by {@link Face} ordinal: the plane across that face (layout as in {@link Planes}), or null where
     *               the face is the grid's boundary.
     */
    BlockSweep(final int nx, final int ny, final int nz, final ByteBuffer[] ghosts)
    {
        this.nx = nx;
        this.ny = ny;
        this.nz = nz;
        this.sy = nx * B;
        this.sz = nx * ny * B;
        this.ghosts = ghosts;
        south = new double[nx];
        north = new double[nx];
        below = new double[nx];
        above = new double[nx];
    }

    /** Runs one sweep over the block in {@code u}. */
    void sweep(final ByteBuffer u)
    {
        for (int z = 0; z < nz; z++)
        {
            final boolean interiorPlane = z > 0 && z < nz - 1;
            for (int y = 0; y < ny; y++)
            {
                final int base = z * sz + y * sy;
                if (interiorPlane && y > 0 && y < ny - 1)
                {
                    interiorRow(u, base, y, z);
                }
                else
                {
                    edgeRow(u, base, y, z);
                }
            }
        }
    }

    /** A row whose y and z neighbours all lie in the block. */
    private void interiorRow(final ByteBuffer u, final int base, final int y, final int z)
    {
        final int last = base + (nx - 1) * B;
        double west = xBoundary(Face.WEST, y, z);
        for (int p = base; p < last; p += B)
        {
            final double c = Relaxation.update(west, u.getDouble(p + B), u.getDouble(p - sy), u.getDouble(p + sy),
                u.getDouble(p - sz), u.getDouble(p + sz));
            u.putDouble(p, c);
            west = c;
        }
        u.putDouble(last, Relaxation.update(west, xBoundary(Face.EAST, y, z), u.getDouble(last - sy),
            u.getDouble(last + sy), u.getDouble(last - sz), u.getDouble(last + sz)));
    }

    /** A row with a y or z neighbour outside the block: its four neighbour rows are gathered first. */
    private void edgeRow(final ByteBuffer u, final int base, final int y, final int z)
    {
        gather(south, y > 0, u, base - sy, Face.SOUTH, z * nx);
        gather(north, y < ny - 1, u, base + sy, Face.NORTH, z * nx);
        gather(below, z > 0, u, base - sz, Face.BELOW, y * nx);
        gather(above, z < nz - 1, u, base + sz, Face.ABOVE, y * nx);
        double west = xBoundary(Face.WEST, y, z);
        final double east = xBoundary(Face.EAST, y, z);
        for (int x = 0; x < nx; x++)
        {
            final int p = base + x * B;
            final double c = Relaxation.update(west, x < nx - 1 ? u.getDouble(p + B) : east, south[x], north[x],
                below[x], above[x]);
            u.putDouble(p, c);
            west = c;
        }
    }

    /** Fills {@code row} from the block at byte {@code offset}, else from the ghost's row at cell {@code planeCell}. */
    private void gather(final double[] row, final boolean inBlock, final ByteBuffer u, final int offset,
        final Face face, final int planeCell)
    {
        final ByteBuffer ghost = ghosts[face.ordinal()];
        if (!inBlock && ghost == null)
        {
            Arrays.fill(row, face.boundary);
            return;
        }
        final ByteBuffer src = inBlock ? u : ghost;
        final int start = inBlock ? offset : planeCell * B;
        for (int x = 0; x < nx; x++)
        {
            row[x] = src.getDouble(start + x * B);
        }
    }

    private double xBoundary(final Face face, final int y, final int z)
    {
        final ByteBuffer ghost = ghosts[face.ordinal()];
        return ghost == null ? face.boundary : ghost.getDouble((z * ny + y) * B);
    }
}
