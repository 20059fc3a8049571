package dev.spillway.checkpoint;

import java.nio.ByteBuffer;
import java.util.Map;

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
     * Whether cuts may be requested behind the submission front ({@code Spillway.checkpointAt}): the runtime then
     * keeps the program hash after each task a cut may still precede. A distributed job that agrees its cuts at run
     * time does so at the ranks' admission fronts.
     */
    default boolean cutsBehindSubmission()
    {
        return false;
    }

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

    /** @return why the cut at {@code globalIndex} may not begin yet, for wait reports; only while it may not. */
    default String beginWait(final long globalIndex)
    {
        return "the checkpoint policy";
    }

    /**
     * Whether the generation of {@code cut}, every save written and every task before it finished, may commit now;
     * polled until it may. A rank's message-logging protocol keeps it open until every transfer sent before the cut
     * is acknowledged, so the generation holds all its logs.
     */
    default boolean mayCommit(final Cut cut)
    {
        return true;
    }

    /** @return why the generation of {@code cut} may not commit yet, for wait reports; only while it may not. */
    default String commitWait(final Cut cut)
    {
        return "the checkpoint policy";
    }

    /**
     * Extra blocks the generation of {@code cut} keeps, asked for once {@link #mayCommit} allowed it, just before the
     * commit: a protocol's own state, restored with the generation. Their tags must not collide with data objects'.
     *
     * @return tag to contents; empty by default.
     */
    default Map<String, byte[]> sections(final Cut cut)
    {
        return Map.of();
    }

    /**
     * Told, when the runtime opens, the generation it resumes from, before any task runs; its blocks (sections
     * included) may be read from the calling thread.
     */
    default void restored(final RestorePoint point)
    {
    }

    /** Told each committed generation's cut, after {@link #committed(CheckpointCost)}. */
    default void cutCommitted(final Cut cut)
    {
    }

    /**
     * Whether the tasks held back at {@code cut}, committed, may run; polled until they may. Only blocking cuts hold
     * tasks back ({@link CheckpointMode#BLOCKING}), and they run at once by default. A replicated rank holds them until
     * its sphere has voted on the generation, so a replica outvoted can be mended before it runs on.
     */
    default boolean mayRelease(final Cut cut)
    {
        return true;
    }

    /** @return why the tasks held at {@code cut} may not run yet, for wait reports; only while they may not. */
    default String releaseWait(final Cut cut)
    {
        return "the checkpoint policy";
    }

    /**
     * Asked once {@link #mayRelease} allowed it: objects whose contents at {@code cut} are wrong, with the right ones.
     * The runtime replaces them in the generation ({@link CheckpointStore#mend}) and in the live objects, then calls
     * {@link #mended}, before any held task runs.
     *
     * @return tag to contents at the version the generation records; empty by default.
     */
    default Map<String, ByteBuffer> mends(final Cut cut)
    {
        return Map.of();
    }

    /**
     * Told, on the IO thread, that the {@link #mends} of {@code cut} were applied ({@code failure} null), and the held
     * tasks run next; or that they could not be (why), and no task runs past the cut: the policy must stop the run.
     */
    default void mended(final Cut cut, final String failure)
    {
    }

    /** Told each generation abandoned (begun but never committed); the previous one stays the newest. */
    default void cutAbandoned(final Cut cut, final String why)
    {
    }

    /** @return a short description for reports, such as {@code every 500 tasks} or {@code auto: 19.3 s}. */
    String describe();
}
