package dev.spillway.kernels.stencil;

import dev.spillway.kernels.graph.Home;
import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileGraph;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The tiles of a {@link BlockGrid} declared on one graph: a spillable tile per block, and for each face between two
 * blocks a pinned ghost on each side holding the other side's boundary layer. A block's tile and its ghosts share the
 * block's home.
 */
final class BlockTiles
{
    private static final int B = Double.BYTES;

    private final BlockGrid grid;
    private final Tile[] mesh;
    /** By block, then by face ordinal: the block's ghost across that face, or null at the grid's boundary. */
    private final Tile[][] ghosts;

    /** Declares the block tiles and the ghosts on {@code graph}. */
    BlockTiles(final TileGraph graph, final BlockGrid grid)
    {
        this.grid = grid;
        final int n = grid.blocks();
        mesh = new Tile[n];
        ghosts = new Tile[n][Face.ALL.length];
        for (int b = 0; b < n; b++)
        {
            final Home home = Home.slab(b, n);
            mesh[b] = graph.tile(grid.meshTag(b), grid.blockCells(b) * B, home);
            for (final Face f : Face.ALL)
            {
                if (grid.neighbour(b, f) >= 0)
                {
                    ghosts[b][f.ordinal()] = graph.pinnedTile(grid.ghostTag(b, f), grid.planeCells(b, f) * B, home);
                }
            }
        }
    }

    /** @return block {@code b}'s tile. */
    Tile mesh(final int b)
    {
        return mesh[b];
    }

    /** @return the block tiles in block order. */
    List<Tile> meshes()
    {
        return List.of(mesh);
    }

    /** @return block {@code b}'s ghost across {@code face}, or null at the grid's boundary. */
    Tile ghost(final int b, final Face face)
    {
        return ghosts[b][face.ordinal()];
    }

    /** @return the ghost that the neighbour of {@code b} across {@code face} holds of b; b must have one there. */
    Tile heldOf(final int b, final Face face)
    {
        return ghosts[grid.neighbour(b, face)][face.opposite().ordinal()];
    }

    /** @return the ghosts block {@code b}'s step reads: its own. */
    Tile[] readBy(final int b)
    {
        final List<Tile> list = new ArrayList<>(Arrays.asList(ghosts[b]));
        list.removeIf(Objects::isNull);
        return list.toArray(new Tile[0]);
    }

    /** @return block {@code b}'s ghosts on its upper faces (x+, y+, z+). */
    List<Tile> upperGhosts(final int b)
    {
        final List<Tile> upper = new ArrayList<>();
        for (final Face f : Face.ALL)
        {
            if (f.direction > 0 && ghosts[b][f.ordinal()] != null)
            {
                upper.add(ghosts[b][f.ordinal()]);
            }
        }
        return upper;
    }

    /** @return the ghosts block {@code b}'s step writes: those its neighbours hold of it. */
    Tile[] writtenBy(final int b)
    {
        final List<Tile> held = new ArrayList<>();
        for (final Face f : Face.ALL)
        {
            if (grid.neighbour(b, f) >= 0)
            {
                held.add(heldOf(b, f));
            }
        }
        return held.toArray(new Tile[0]);
    }
}
