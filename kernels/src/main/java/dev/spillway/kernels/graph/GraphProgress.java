package dev.spillway.kernels.graph;

/**
 * Counters since the graph was opened.
 *
 * @param tasksSubmitted tasks submitted.
 * @param tasksDone      tasks finished.
 * @param bytesRead      bytes read from the NVMe tier (for mmap: from the block device, when the OS reports it).
 * @param bytesWritten   bytes written to the NVMe tier.
 */
public record GraphProgress(long tasksSubmitted, long tasksDone, long bytesRead, long bytesWritten)
{
}
