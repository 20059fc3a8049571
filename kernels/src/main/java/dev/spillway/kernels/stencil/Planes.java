package dev.spillway.kernels.stencil;

import java.nio.ByteBuffer;

/**
 * The layer of a block that a neighbour needs, as a plane of doubles. A plane across an x face is laid out y fastest
 * (index z·ny + y), across a y face x fastest (z·nx + x), across a z face x fastest (y·nx + x): the two remaining
 * axes, lower one fastest, so a block and its neighbour agree on it.
 */
final class Planes
{
    private static final int B = Double.BYTES;

    private Planes()
    {
    }

    /** Copies the cells of the block in {@code u} (nx×ny×nz) lying on {@code face} into {@code plane}. */
    static void copyLayer(final ByteBuffer u, final int nx, final int ny, final int nz, final Face face,
        final ByteBuffer plane)
    {
        switch (face.axis)
        {
            case 0 ->
            {
                final int x = face.direction < 0 ? 0 : nx - 1;
                for (int z = 0; z < nz; z++)
                {
                    for (int y = 0; y < ny; y++)
                    {
                        plane.putDouble((z * ny + y) * B, u.getDouble(((z * ny + y) * nx + x) * B));
                    }
                }
            }
            case 1 ->
            {
                final int y = face.direction < 0 ? 0 : ny - 1;
                for (int z = 0; z < nz; z++)
                {
                    plane.put(z * nx * B, u, (z * ny + y) * nx * B, nx * B);
                }
            }
            default ->
            {
                final int z = face.direction < 0 ? 0 : nz - 1;
                plane.put(0, u, z * ny * nx * B, ny * nx * B);
            }
        }
    }
}
