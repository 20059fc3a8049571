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

    /** @return a short description for reports, such as {@code every 500 tasks} or {@code auto: 19.3 s}. */
    String describe();
}
