package dev.spillway.kernels.graph;

/** The work of one task. */
@FunctionalInterface
public interface TileBody
{
    /** Runs the task; an exception fails it and reaches the caller with the task's name. */
    void run(TileAccess access) throws Exception;
}
