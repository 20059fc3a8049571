package dev.spillway.kernels.graph;

import java.nio.ByteBuffer;

/** What a running task sees of its declared tiles. */
public interface TileAccess
{
    /**
     * @return a direct buffer over the tile's bytes in native order, absolute index 0 to {@code tile.size()};
     *         read-only for tiles declared READ.
     */
    ByteBuffer buffer(Tile tile);
}
