package dev.spillway.checkpoint;

/**
 * Identifies one checkpoint generation.
 *
 * @param generation  increases by one per checkpoint begun in a checkpoint directory, across restarts.
 * @param frontier    tasks with a submission sequence below this are complete and their outputs are in the
 *                    generation; a restarted program skips them.
 * @param epoch       how many times the program has been restarted from this directory.
 * @param programHash a hash of the names, tags and privileges of the tasks before the frontier, so a restart with a
 *                    different program is refused rather than silently mixed.
 */
public record Cut(long generation, long frontier, long epoch, long programHash)
{
}
