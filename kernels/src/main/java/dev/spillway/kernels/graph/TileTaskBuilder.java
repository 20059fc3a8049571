package dev.spillway.kernels.graph;

/** Declares one task's tiles, each with its privilege, then submits it. */
public interface TileTaskBuilder
{
    TileTaskBuilder read(Tile... tiles);

    /** Declares tiles the task overwrites completely, without reading them. */
    TileTaskBuilder write(Tile... tiles);

    TileTaskBuilder readWrite(Tile... tiles);

    /** Declares temporary tiles whose contents do not outlive the task. */
    TileTaskBuilder scratch(Tile... tiles);

    /** Sets the priority used by policy {@code p}; higher runs first. */
    TileTaskBuilder priority(int priority);

    void submit(TileBody body);
}
