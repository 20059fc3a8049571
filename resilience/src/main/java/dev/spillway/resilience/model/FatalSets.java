package dev.spillway.resilience.model;

/**
 * The minimal sets of elements (hosts, ranks) whose failure together loses some data with every copy of it, for
 * checkpoints kept in one other place (m = 1): single elements that hold both a checkpoint and its copy, and pairs of
 * elements that hold one each (neither fatal alone).
 *
 * @param singles elements fatal alone.
 * @param pairs   pairs of elements fatal together.
 */
public record FatalSets(long singles, long pairs)
{
    /** Checks the counts. */
    public FatalSets
    {
        if (singles < 0 || pairs < 0)
        {
            throw new IllegalArgumentException("fatal set counts must not be negative: " + singles + ", " + pairs);
        }
    }

    /**
     * Seed 000's worst case for groups of {@code groupSize} placed topology-aware on {@code elements} elements: every
     * one of the {@code D = ⌈elements / groupSize⌉} groups has its {@code C(|G|, 2)} pairs on distinct element pairs
     * (eq. 8's {@code D·C(|G|, 2)}).
     */
    public static FatalSets ofGroups(final int elements, final int groupSize)
    {
        if (elements < 1 || groupSize < 2)
        {
            throw new IllegalArgumentException("need at least one element and groups of at least 2, got " + elements +
                " and " + groupSize);
        }
        final long groups = (elements + groupSize - 1) / groupSize;
        return new FatalSets(0, groups * groupSize * (groupSize - 1L) / 2);
    }
}
