package dev.spillway.internal;

import dev.spillway.checkpoint.CheckpointStore;
import dev.spillway.checkpoint.Cut;
import dev.spillway.checkpoint.RestorePoint;
import dev.spillway.memory.Residency;

import java.io.IOException;
import java.io.UncheckedIOException;

import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * What a run takes from the checkpoint it resumes from: the restore point, found once when the runtime opens; the
 * restored contents of declared objects; and the tasks before the cut, which are done without running. The program
 * is hashed as it is submitted, so a program that differs from the one checkpointed is refused at the cut.
 */
final class Restart
{
    private static final System.Logger LOG = System.getLogger(Restart.class.getName());
    /** The program hash of no task. */
    static final long PROGRAM_HASH_SEED = 0xcbf29ce484222325L;

    private final RestorePoint point;
    /** Tasks below this sequence are skipped, their outputs restored. */
    private final long frontier;
    /** Under the submit lock: hash of the tasks submitted so far. */
    private long programHash = PROGRAM_HASH_SEED;

    /** @param point the generation to resume from, or {@code null} for a fresh run. */
    Restart(final RestorePoint point)
    {
        this.point = point;
        this.frontier = point == null ? 0 : point.cut().frontier();
    }

    /** Finds the generation to resume from, if checkpoints are on; logs rejected generations. */
    static RestorePoint find(final CheckpointStore checkpoints)
    {
        if (checkpoints == null)
        {
            return null;
        }
        try
        {
            final RestorePoint found = checkpoints.restore(line -> LOG.log(WARNING,
                "spillway: " + line));
            if (found != null)
            {
                LOG.log(INFO, "spillway: resuming from checkpoint generation " +
                    found.cut().generation() + ": tasks before #" + found.cut().frontier() + " are restored, not run");
            }
            return found;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot read the checkpoint directory: " + e.getMessage(), e);
        }
    }

    /** @return the generation resumed from, or {@code null} for a fresh run. */
    RestorePoint point()
    {
        return point;
    }

    /**
     * @return whether the restored generation already holds a cut requested before task {@code seq}: one at a global
     *         index up to the restored one's, or, for a local cut, one whose tasks it all holds.
     */
    boolean holdsCut(final long seq, final long globalIndex)
    {
        if (point == null)
        {
            return false;
        }
        return globalIndex != Cut.LOCAL && point.cut().global() ? globalIndex <= point.cut().globalIndex() :
            seq <= frontier;
    }

    /** @return the hash of the tasks submitted so far; under the submit lock. */
    long programHash()
    {
        return programHash;
    }

    /** @return whether the restored generation holds contents for {@code tag}. */
    boolean holds(final String tag)
    {
        return point != null && point.blocks().containsKey(tag);
    }

    /**
     * A declared object whose contents are in the restored generation: it starts out in the store.
     *
     * @throws IllegalArgumentException if the generation holds a different size for it.
     */
    void restoreContents(final DataRef ref)
    {
        final RestorePoint.Block block = point.blocks().get(ref.tag());
        final int length = block.length();
        if (length != ref.size())
        {
            throw new IllegalArgumentException("data '" + ref.tag() + "' is declared with " + ref.size() +
                " bytes, but checkpoint generation " + point.cut().generation() + " holds " + length +
                " bytes for it: the program differs from the one checkpointed");
        }
        ref.hasContents = true;
        ref.ioHasContents = true;
        ref.object.stored(true);
        ref.object.discardable(false);
        ref.object.residency(Residency.IN_NVM);
        ref.object.restoredVersion(block.version());
    }

    /**
     * Under the submit lock: adds {@code t} to the program's hash and, if it lies before the restored cut, finishes it
     * without running: its outputs come from the checkpoint.
     *
     * @return whether {@code t} was skipped.
     * @throws IllegalStateException if {@code t} ends a program that differs from the one checkpointed.
     */
    boolean skips(final TaskRecord t)
    {
        programHash = hashTask(programHash, t);
        t.prefixHash = programHash;
        if (t.seq >= frontier)
        {
            return false;
        }
        if (t.seq == frontier - 1 && programHash != point.cut().programHash())
        {
            throw new IllegalStateException("task '" + t.name + "' (#" + t.seq + ") ends a program that differs " +
                "from the one checkpointed in generation " + point.cut().generation() + " (hash " +
                Long.toHexString(programHash) + ", checkpoint " + Long.toHexString(point.cut().programHash()) +
                "): names, data or privileges of the tasks before the cut changed; use a fresh checkpoint directory");
        }
        t.finish(TaskStatus.DONE, null);
        return true;
    }

    private static long hashTask(final long hash, final TaskRecord t)
    {
        long h = mix(hash, t.name.hashCode());
        for (int i = 0; i < t.refs.length; i++)
        {
            h = mix(mix(h, t.refs[i].tag().hashCode()), t.privileges[i].ordinal());
        }
        return h;
    }

    /** One FNV-1a style step. */
    private static long mix(final long h, final int v)
    {
        return (h ^ v) * 0x100000001b3L;
    }
}
