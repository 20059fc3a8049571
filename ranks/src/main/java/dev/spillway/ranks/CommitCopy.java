package dev.spillway.ranks;

import dev.spillway.checkpoint.CheckpointPolicy;
import dev.spillway.checkpoint.Cut;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Where a rank copies each generation it committed before rank 0 may count it towards a global commit, such as a
 * buddy rank that keeps a copy on its own disk ({@link GlobalCheckpoints#copyCommitsTo}). A global checkpoint then
 * survives the loss of any rank together with its disk, as long as the rank's copy survives.
 */
public interface CommitCopy extends AutoCloseable
{
    /**
     * Starts copying the generation of {@code cut}, just committed in the rank's own store, and returns at once.
     * Called on the runtime's IO thread; the next global cut waits until {@code durable} ran.
     *
     * @param durable run, from any thread, once the copy is durable.
     * @param failed  told why, from any thread, if the copy cannot be made.
     */
    void copy(Cut cut, Runnable durable, Consumer<String> failed);

    /**
     * Told, on a thread of the global checkpoints, that the job's newest global cut is now the one at
     * {@code globalIndex}, once this rank recorded it: a copy of that cut or a newer one must be kept, since a job
     * whose rank 0 lost its record with its node resumes from the newest cut a surviving rank recorded.
     */
    default void globallyCommitted(final long globalIndex)
    {
    }

    /**
     * Whether the tasks the runtime held back at {@code cut} may run ({@link CheckpointPolicy#mayRelease}); polled on
     * the IO thread, after {@link #copy}.
     */
    default boolean mayRelease(final Cut cut)
    {
        return true;
    }

    /** @return the objects to mend at {@code cut} before the held tasks run ({@link CheckpointPolicy#mends}). */
    default Map<String, ByteBuffer> mends(final Cut cut)
    {
        return Map.of();
    }

    /** Told whether the {@link #mends} of {@code cut} were applied ({@link CheckpointPolicy#mended}). */
    default void mended(final Cut cut, final String failure)
    {
    }

    /** @return what the copy is doing, for wait reports. */
    String state();

    /** @return seconds this rank spent bringing its copy back before its store opened; 0 when it did not. */
    default double fetchSeconds()
    {
        return 0;
    }

    /** Stops copying; called when the runtime closes. A copy under way is abandoned. */
    @Override
    void close();
}
