package dev.spillway.checkpoint;

/**
 * Decides when to take the next checkpoint. {@link #due} and {@link #committed} are called from the runtime's IO
 * thread, {@link #describe} from any thread.
 */
public interface CheckpointPolicy
{
    /**
     * @param tasksSinceCut tasks finished since the last cut (or since the start).
     * @param nanosSinceCut nanoseconds since the last cut (or since the start).
     * @return true to cut now (after the latest task admitted to DRAM).
     */
    boolean due(long tasksSinceCut, long nanosSinceCut);

    /** Told the measured cost of every committed checkpoint, so an adaptive policy can recompute its interval. */
    void committed(CheckpointCost cost);

    /**
     * Whether a cut requested with {@code Spillway.checkpointHere} may begin now; polled until it may. Tasks
     * submitted after the request wait meanwhile. A distributed job's policy uses it to keep every rank's newest
     * global checkpoint until a newer one is committed on every rank.
     *
     * @param globalIndex the requested cut's {@link Cut#globalIndex}.
     */
    default boolean mayBegin(final long globalIndex)
    {
        return true;
    }

    /** Told each committed generation's cut, after {@link #committed(CheckpointCost)}. */
    default void cutCommitted(final Cut cut)
    {
    }

    /** Told each generation abandoned (begun but never committed); the previous one stays the newest. */
    default void cutAbandoned(final Cut cut, final String why)
    {
    }

    /** @return a short description for reports, such as {@code every 500 tasks} or {@code auto: 19.3 s}. */
    String describe();
}
