package dev.spillway.kernels.graph;

/** A block of bytes in a task graph, named by a stable tag. */
public interface Tile
{
    /** @return the stable tag; results are checksummed in tag order. */
    String tag();

    /** @return the size in bytes. */
    int size();
}
