package dev.spillway.checkpoint;

/**
 * What one committed checkpoint cost.
 *
 * @param blockNanos        time the checkpoint held tasks back: the local capture in semi-blocking mode, the whole
 *                          checkpoint in blocking mode.
 * @param totalNanos        time from the cut to the durable commit.
 * @param interferenceNanos IO-thread time spent on checkpoint writes while out-of-core transfers were waiting.
 * @param bytesWritten      bytes of blocks written (objects written since the previous cut).
 * @param objectsSaved      objects written.
 * @param objectsInherited  objects referenced from an older generation, not copied.
 */
public record CheckpointCost(long blockNanos, long totalNanos, long interferenceNanos, long bytesWritten,
    int objectsSaved, int objectsInherited)
{
}
