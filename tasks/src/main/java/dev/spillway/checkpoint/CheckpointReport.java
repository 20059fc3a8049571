package dev.spillway.checkpoint;

/**
 * What checkpointing did in one run, from {@code Spillway.checkpointReport()}.
 *
 * @param enabled            whether checkpoints were configured.
 * @param mode               how checkpoints held tasks back.
 * @param policy             the interval policy, described.
 * @param committed          generations made durable by this run.
 * @param abandoned          generations given up (an IO error, or a task before the cut failed).
 * @param blockSeconds       wall time during which at least one runnable task was held back by a checkpoint.
 * @param totalSeconds       sum over committed generations of the time from cut to durable commit.
 * @param bytesWritten       bytes of blocks written.
 * @param objectsSaved       objects written, summed over generations.
 * @param objectsInherited   objects referenced from older generations instead of copied, summed.
 * @param restoredGeneration the generation resumed from, or -1 for a fresh start.
 * @param restoredTasks      tasks skipped because their outputs came from the checkpoint.
 * @param reexecutedTasks    tasks the crashed run had completed after its last committed cut, run again (from its
 *                           progress record; 0 when unknown).
 * @param restoreSeconds     time to find and verify the generation (read plus verify plus bookkeeping).
 * @param readSeconds        part of {@code restoreSeconds} spent reading blocks.
 * @param verifySeconds      part of {@code restoreSeconds} spent computing checksums.
 * @param reexecuteSeconds   time from the end of the restore until the re-executed tasks were done again.
 * @param explanation        what recovery did and why, for people; empty for a fresh start.
 */
public record CheckpointReport(boolean enabled, CheckpointMode mode, String policy, int committed, int abandoned,
    double blockSeconds, double totalSeconds, long bytesWritten, long objectsSaved, long objectsInherited,
    long restoredGeneration, long restoredTasks, long reexecutedTasks, double restoreSeconds, double readSeconds,
    double verifySeconds, double reexecuteSeconds, String explanation)
{
}
