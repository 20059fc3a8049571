package dev.spillway.kernels;

/**
 * What one run of a kernel on one graph measured.
 *
 * @param graph        {@code spillway} or {@code mmap}.
 * @param initSeconds  time to generate the inputs (not part of {@code timeSeconds}).
 * @param timeSeconds  time of the compute phase: submission of the first compute task to completion of the last.
 * @param bytesRead    bytes read from the NVMe tier during the compute phase.
 * @param bytesWritten bytes written to the NVMe tier during the compute phase.
 * @param verification the kernel's verdict, or null when verification was skipped.
 * @param checksum     {@link ResultChecksum} of the result tiles.
 * @param inputTasks   tasks submitted to generate the inputs: the compute phase's first task is number
 *                     {@code inputTasks} in submission order, from 0.
 * @param done         tasks finished in each phase.
 */
public record RunResult(String graph, double initSeconds, double timeSeconds, long bytesRead, long bytesWritten,
    Verification verification, String checksum, long inputTasks, PhaseTasks done)
{
}
