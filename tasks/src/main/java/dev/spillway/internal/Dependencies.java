package dev.spillway.internal;

import dev.spillway.Privilege;

import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * Infers dependencies from submission order, on the IO thread. A READ waits for the object's last exclusive user; an
 * exclusive access (WRITE, READ_WRITE, SCRATCH) waits for the last exclusive user and every reader since. A task whose
 * predecessors have all finished is queued as met, for the duty cycle to take with {@link #pollMet()}.
 */
final class Dependencies
{
    /** Readers kept per object before finished ones are pruned. */
    private static final int READERS_BEFORE_PRUNE = 64;

    private final ArrayDeque<TaskRecord> met = new ArrayDeque<>();
    private final ArrayList<TaskRecord> scratchPreds = new ArrayList<>();

    /**
     * A user task was submitted: adds edges from the earlier users it must wait for and makes it the latest user of
     * its objects.
     *
     * @param futureUse    whether its objects record it as a future use (not for a discard).
     * @param trackWriters whether a writer joins its objects' chains of unfinished writers (checkpoints on).
     */
    void submitted(final TaskRecord t, final boolean futureUse, final boolean trackWriters)
    {
        final ArrayList<TaskRecord> preds = scratchPreds;
        for (int i = 0; i < t.refs.length; i++)
        {
            final DataRef r = t.refs[i];
            if (futureUse)
            {
                r.object.addFutureUse(t);
            }
            final TaskRecord w = r.lastWriter;
            if (w != null && !w.isDone())
            {
                edge(w, t, preds);
            }
            if (t.privileges[i] == Privilege.READ)
            {
                if (r.readers.size() >= READERS_BEFORE_PRUNE)
                {
                    r.readers.removeIf(TaskRecord::isDone);
                }
                r.readers.add(t);
            }
            else
            {
                for (int k = 0, n = r.readers.size(); k < n; k++)
                {
                    final TaskRecord reader = r.readers.get(k);
                    if (!reader.isDone())
                    {
                        edge(reader, t, preds);
                    }
                }
                r.readers.clear();
                r.lastWriter = t;
                if (trackWriters && !t.saveTask())
                {
                    r.unfinishedWriters().addLast(t);
                }
            }
        }
        settle(t);
    }

    /**
     * A checkpoint save task, created on the IO thread: it waits only for {@code lastWriter} (the object's last writer
     * before the cut, or null) and leaves the object's dependency state alone.
     */
    void submittedSave(final TaskRecord t, final TaskRecord lastWriter)
    {
        if (lastWriter != null && !lastWriter.isDone())
        {
            edge(lastWriter, t, scratchPreds);
        }
        settle(t);
    }

    /** Records the predecessors collected for {@code t}; queues it as met if it has none unfinished. */
    private void settle(final TaskRecord t)
    {
        if (!scratchPreds.isEmpty())
        {
            t.predecessors = scratchPreds.toArray(new TaskRecord[0]);
            scratchPreds.clear();
        }
        if (t.pendingDeps == 0)
        {
            met.add(t);
        }
    }

    private static void edge(final TaskRecord from, final TaskRecord to, final ArrayList<TaskRecord> preds)
    {
        if (from.successors == null)
        {
            from.successors = new ArrayList<>(4);
        }
        from.successors.add(to);
        to.pendingDeps++;
        preds.add(from);
    }

    /** {@code t} finished, however: successors whose last unfinished predecessor it was are met. */
    void finished(final TaskRecord t)
    {
        final ArrayList<TaskRecord> succ = t.successors;
        t.successors = null;
        if (succ != null)
        {
            for (int i = 0, n = succ.size(); i < n; i++)
            {
                final TaskRecord s = succ.get(i);
                if (--s.pendingDeps == 0)
                {
                    met.add(s);
                }
            }
        }
    }

    /** @return the next task whose dependencies are met, or {@code null}. */
    TaskRecord pollMet()
    {
        return met.poll();
    }
}
