package dev.spillway.checkpoint;

/**
 * Identifies one checkpoint generation.
 *
 * @param generation  increases by one per checkpoint begun in a checkpoint directory, across restarts.
 * @param frontier    tasks with a submission sequence below this are complete and their outputs are in the
 *                    generation; a restarted program skips them.
 * @param globalIndex for a cut every rank of a distributed job takes, the global submission index it lies at (the
 *                    same on every rank, so the ranks' generations of one index form a consistent global checkpoint);
 *                    {@link #LOCAL} for a cut this runtime chose alone.
 * @param incarnation how many times the program has been restarted from this directory.
 * @param programHash a hash of the names, tags and privileges of the tasks before the frontier, so a restart with a
 *                    different program is refused rather than silently mixed.
 */
public record Cut(long generation, long frontier, long globalIndex, long incarnation, long programHash)
{
    /** The {@link #globalIndex} of a cut that is not part of a global checkpoint. */
    public static final long LOCAL = -1;

    /** @return a cut this runtime chose alone ({@link #LOCAL}). */
    public static Cut local(final long generation, final long frontier, final long incarnation,
        final long programHash)
    {
        return new Cut(generation, frontier, LOCAL, incarnation, programHash);
    }

    /** @return whether every rank of a distributed job takes this cut. */
    public boolean global()
    {
        return globalIndex != LOCAL;
    }
}
