package dev.spillway.kernels;

/**
 * Tasks a run finished in each of its phases; tasks restored from a checkpoint are skipped, not finished.
 *
 * @param generation   tasks that generated the inputs.
 * @param compute      tasks of the timed compute phase.
 * @param verification tasks that verified and checksummed the result.
 */
public record PhaseTasks(long generation, long compute, long verification)
{
    /** @return the tasks finished in all phases. */
    public long total()
    {
        return generation + compute + verification;
    }
}
