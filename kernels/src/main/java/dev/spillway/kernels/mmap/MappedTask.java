package dev.spillway.kernels.mmap;

import dev.spillway.kernels.graph.TileBody;
import dev.spillway.Privilege;

import java.util.ArrayList;

/** One submitted task of a {@link MappedGraph}. */
final class MappedTask
{
    final String name;
    final MappedTile[] tiles;
    final Privilege[] privileges;
    /** Dropped once the task finished, so that finished tasks still referenced by tiles hold little. */
    TileBody body;

    /** Guarded by the {@link DependencyTracker}. */
    int pending;
    ArrayList<MappedTask> successors;
    boolean done;

    MappedTask(final String name, final TileBody body, final MappedTile[] tiles, final Privilege[] privileges)
    {
        this.name = name;
        this.body = body;
        this.tiles = tiles;
        this.privileges = privileges;
    }

    /** @return an input whose producer failed, or {@code null}; call once the task is ready. */
    MappedTile poisonedInput()
    {
        for (int i = 0; i < tiles.length; i++)
        {
            if (privileges[i].readsContents() && tiles[i].poisonedBy != null)
            {
                return tiles[i];
            }
        }
        return null;
    }

    @Override
    public String toString()
    {
        return name;
    }
}
