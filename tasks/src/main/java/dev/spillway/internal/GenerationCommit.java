package dev.spillway.internal;

import dev.spillway.checkpoint.CheckpointCost;
import dev.spillway.checkpoint.CheckpointPolicy;
import dev.spillway.checkpoint.CheckpointStore;
import dev.spillway.checkpoint.Cut;
import dev.spillway.checkpoint.GenerationWriter;
import dev.spillway.memory.BufferPool;
import dev.spillway.memory.DramBudget;
import dev.spillway.memory.TileBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Map;

import static java.lang.System.Logger.Level.WARNING;

/**
 * The checkpoint generation in flight, on the IO thread: its writer, the captured objects waiting to be written, and
 * what it still waits for. It commits once every save is written and every task before the cut has finished; a
 * failed write, a failed task before the cut or a failed commit abandons it, and the previous generation stays the
 * newest. Either way the {@link Checkpointer} is told, so it can let held-back tasks go.
 */
final class GenerationCommit
{
    private static final System.Logger LOG = System.getLogger(GenerationCommit.class.getName());

    private final Checkpointer checkpointer;
    private final CheckpointStore store;
    private final BufferPool pool;
    private final DramBudget budget;
    private final CheckpointMetrics metrics;
    private final IoShare share;
    private final ArrayDeque<SaveJob> writes = new ArrayDeque<>();
    private Admission admission;

    private GenerationWriter writer;
    private long frontier = -1;
    private long lastCommittedFrontier;
    private int savesLeft;
    private long beforeCutLeft;
    private boolean failedBeforeCut;
    /** The generation has everything but the policy's permission to commit ({@code mayCommit}). */
    private boolean gated;

    GenerationCommit(final Checkpointer checkpointer, final CheckpointStore store, final BufferPool pool,
        final CheckpointMetrics metrics, final IoShare share)
    {
        this.checkpointer = checkpointer;
        this.store = store;
        this.pool = pool;
        this.budget = pool.budget();
        this.metrics = metrics;
        this.share = share;
        this.lastCommittedFrontier = metrics.restoredTasks();
    }

    void wire(final Admission admission)
    {
        this.admission = admission;
    }

    /** @return whether a generation is in flight. */
    boolean inFlight()
    {
        return writer != null;
    }

    /** @return the number of the generation in flight; only while one is. */
    long number()
    {
        return writer.cut().generation();
    }

    /** @return the cut frontier of the generation in flight; only while one is. */
    long frontier()
    {
        return frontier;
    }

    /** @return the frontier of the newest committed (or restored) generation. */
    long lastCommittedFrontier()
    {
        return lastCommittedFrontier;
    }

    /** @return whether save task {@code t} saves for the generation in flight (not for one abandoned). */
    boolean current(final TaskRecord t)
    {
        return writer != null && t.saveGeneration == writer.cut().generation();
    }

    /**
     * Begins the generation of cut {@code c}.
     *
     * @return false if the store refused it: it counts as abandoned.
     */
    boolean begin(final Cut c)
    {
        try
        {
            writer = store.begin(c);
        }
        catch (final IOException | RuntimeException e)
        {
            LOG.log(WARNING, "spillway: cannot begin checkpoint generation " + c.generation() +
                ": " + e.getMessage());
            metrics.abandoned();
            return false;
        }
        frontier = c.frontier();
        failedBeforeCut = false;
        gated = false;
        savesLeft = 0;
        beforeCutLeft = 0;
        return true;
    }

    /** The generation waits for {@code tasks} user tasks before the cut to finish. */
    void waitFor(final long tasks)
    {
        beforeCutLeft = tasks;
    }

    /** The generation saves one more object. */
    void saveAdded()
    {
        savesLeft++;
    }

    /** A save needs no write (its object holds no contents). */
    void saveSkipped()
    {
        savesLeft--;
    }

    /** A save task did not run: the generation cannot be complete. */
    void saveLost()
    {
        savesLeft--;
        failedBeforeCut = true;
    }

    /**
     * A captured object waits to be written: from {@code buffer}, its own copy, or the object's buffer, which the
     * save task {@code task} then holds until written (null for a copy).
     */
    void enqueue(final DataRef ref, final TileBuffer buffer, final int size, final long version,
        final TaskRecord task)
    {
        writes.addLast(new SaveJob(ref, buffer, size, version, task));
    }

    /** @return whether captured objects wait to be written. */
    boolean hasWrites()
    {
        return !writes.isEmpty();
    }

    /** @return whether a captured object waiting to be written holds back a writer parked on it. */
    boolean urgentWrite()
    {
        return urgent() != null;
    }

    private SaveJob urgent()
    {
        for (final SaveJob j : writes)
        {
            if (j.ref.parked != null && !j.ref.parked.isEmpty())
            {
                return j;
            }
        }
        return null;
    }

    /** Writes the next captured object: one a parked writer waits for, else the oldest. */
    void writeOne(final boolean transfersWaiting)
    {
        final SaveJob urgent = urgent();
        final SaveJob j = urgent == null ? writes.pollFirst() : urgent;
        if (urgent != null)
        {
            writes.remove(urgent);
        }
        final long start = System.nanoTime();
        if (writer != null)
        {
            final ByteBuffer src = j.buffer.buffer().clear().limit(j.size);
            try
            {
                writer.save(j.ref.tag(), src, j.version);
                metrics.wrote(j.size);
            }
            catch (final IOException | RuntimeException e)
            {
                abandon("cannot write '" + j.ref.tag() + "': " + e.getMessage());
            }
            finally
            {
                src.clear();
            }
        }
        release(j);
        savesLeft--;
        final long took = System.nanoTime() - start;
        if (transfersWaiting)
        {
            share.checkpointWrote(j.size);
            metrics.interfered(took);
        }
        maybeCommit();
    }

    /** A written (or dropped) object: a copy goes back to the pool; a written-through object is captured. */
    private void release(final SaveJob j)
    {
        if (j.task != null)
        {
            checkpointer.writtenThrough(j.ref, j.task);
        }
        else
        {
            pool.release(j.buffer);
            budget.uncommit(pool.cost(j.size));
            admission.changed();
        }
    }

    /** A user task finished: if it was before the cut, the generation waits for one fewer. */
    void userFinished(final TaskRecord t, final boolean ok)
    {
        if (writer != null && t.seq < frontier)
        {
            beforeCutLeft--;
            failedBeforeCut |= !ok;
            maybeCommit();
        }
    }

    /** Commits the generation if it has everything, or abandons it if a task before the cut failed. */
    void maybeCommit()
    {
        if (writer == null || savesLeft > 0 || beforeCutLeft > 0)
        {
            return;
        }
        if (failedBeforeCut)
        {
            abandon("a task before the cut failed");
            return;
        }
        if (!checkpointer.mayCommit(writer.cut()))
        {
            gated = true;
            return;
        }
        gated = false;
        try
        {
            for (final Map.Entry<String, byte[]> section : checkpointer.sections(writer.cut()).entrySet())
            {
                saveSection(section.getKey(), section.getValue());
            }
            writer.commit();
        }
        catch (final IOException | RuntimeException e)
        {
            abandon("commit failed: " + e.getMessage());
            return;
        }
        final long end = System.nanoTime();
        final CheckpointCost cost = metrics.committed(end);
        final Cut cut = writer.cut();
        writer = null;
        lastCommittedFrontier = frontier;
        checkpointer.committed(cut, cost);
    }

    /** @return whether the generation has everything but waits for the policy's permission to commit. */
    boolean gated()
    {
        return writer != null && gated;
    }

    /**
     * Any thread, for wait reports (racy reads): what the generation in flight waits for, or null when none is.
     */
    String waitReason(final CheckpointPolicy policy)
    {
        final GenerationWriter w = writer;
        if (w == null)
        {
            return null;
        }
        return "checkpoint generation " + w.cut().generation() + " waits for " + (gated ? policy.commitWait(w.cut()) :
            savesLeft + " save(s) to be written and " + beforeCutLeft + " task(s) before its cut to finish") +
            (w.cut().global() ? " (its cut is at global index " + w.cut().globalIndex() + ")" : "");
    }

    /** @return the cut of the generation in flight; only while one is. */
    Cut cut()
    {
        return writer.cut();
    }

    private void saveSection(final String tag, final byte[] contents) throws IOException
    {
        final int page = 4096;
        final int capacity = Math.max(page, (contents.length + page - 1) / page * page);
        final ByteBuffer buffer = ByteBuffer.allocateDirect(capacity + page).alignedSlice(page).limit(capacity);
        buffer.put(contents).flip();
        writer.save(tag, buffer, writer.cut().generation());
        metrics.wrote(contents.length);
    }

    private void abandon(final String why)
    {
        LOG.log(WARNING, "spillway: checkpoint generation " + writer.cut().generation() +
            " abandoned (" + why + "); the previous one stays the newest");
        final Cut cut = writer.cut();
        writer.abandon();
        writer = null;
        metrics.abandoned();
        SaveJob j;
        while ((j = writes.pollFirst()) != null)
        {
            release(j);
        }
        checkpointer.abandoned(cut, why);
    }

    /** After the threads stopped: drops an unfinished generation and the copies waiting to be written. */
    void close()
    {
        if (writer != null)
        {
            writer.abandon();
            writer = null;
        }
        SaveJob j;
        while ((j = writes.pollFirst()) != null)
        {
            if (j.task == null)
            {
                pool.release(j.buffer);
            }
        }
    }

    /** A captured object waiting to be written: its own copy, or the object's buffer (then {@code task} holds it). */
    private record SaveJob(DataRef ref, TileBuffer buffer, int size, long version, TaskRecord task)
    {
    }
}
