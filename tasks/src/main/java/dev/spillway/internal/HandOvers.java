package dev.spillway.internal;

import dev.spillway.memory.Residency;
import dev.spillway.spi.AsyncTaskBody;

/**
 * Successors a worker runs straight after their predecessor, on the IO thread. When a task is made ready, or its
 * worker turns out to run it, its one successor that waits for nothing else and uses only objects the task holds in
 * DRAM is admitted at once and handed to the task ({@link TaskRecord#handOver}). The worker claims it as the task's
 * body returns and runs it next, so a chain of tasks on one object needs no round trip through the IO thread and
 * the ready queue per link. A successor the worker did not claim (the task failed, or the hand-over came too late)
 * is taken back when the task's end is processed and routed as any other.
 *
 * <p>Off when configured so ({@link dev.spillway.SpillwayConfig#handOvers}), while checkpoints run (their cuts park
 * tasks at admission) or admission is paused, and for asynchronous tasks, whose worker does not wait for their end.
 */
final class HandOvers
{
    /** Successors handed over ahead of a running or ready task, at most. */
    static final int DEPTH = 8;

    private final Counters counters;
    private final boolean sharedQueue;
    private final boolean configured;
    private Admission admission;
    private TaskCompletion completion;
    private boolean enabled;

    HandOvers(final Counters counters, final boolean sharedQueue, final boolean configured)
    {
        this.counters = counters;
        this.sharedQueue = sharedQueue;
        this.configured = configured;
    }

    /** @param checkpoints whether checkpoints run, which turns hand-overs off. */
    void wire(final Admission admission, final TaskCompletion completion, final boolean checkpoints)
    {
        this.admission = admission;
        this.completion = completion;
        this.enabled = configured && !checkpoints;
    }

    /**
     * {@code t} is about to be offered to a worker, or is run by one: extends the chain handed to its worker, up to
     * {@link #DEPTH} tasks handed over ahead of the one that runs or waits in a ready queue.
     */
    void from(final TaskRecord t, final boolean paused)
    {
        if (!enabled || paused || completion.cancelling() || !synchronous(t))
        {
            return;
        }
        int depth = 0;
        for (TaskRecord by = t.handedOverBy; by != null && depth < DEPTH; by = by.handedOverBy)
        {
            depth++;
        }
        TaskRecord tail = t;
        for (TaskRecord next; (next = tail.handedOverTask()) != null && depth < DEPTH; tail = next)
        {
            depth++;
        }
        while (depth < DEPTH && tail.nothingHandedOver())
        {
            final TaskRecord s = follower(tail);
            if (s == null)
            {
                return;
            }
            s.admittedByHandOver = true;
            admission.admitHeld(s);
            completion.admitted(s);
            completion.fetched();
            s.handedOverBy = tail;
            s.status(TaskStatus.READY);
            tail.handOver(s);
            counters.handOvers++;
            tail = s;
            depth++;
        }
    }

    private TaskRecord follower(final TaskRecord t)
    {
        if (t.successors == null)
        {
            return null;
        }
        for (int i = 0, n = t.successors.size(); i < n; i++)
        {
            final TaskRecord s = t.successors.get(i);
            if (mayFollow(s, t))
            {
                return s;
            }
        }
        return null;
    }

    /** A task was submitted: its one unfinished predecessor may already be ready or running. */
    void submitted(final TaskRecord s, final boolean paused)
    {
        if (s.pendingDeps != 1 || s.predecessors == null || s.predecessors.length != 1)
        {
            return;
        }
        final TaskRecord p = s.predecessors[0];
        final TaskStatus status = p.status();
        if (p.admitted && (status == TaskStatus.READY || status == TaskStatus.RUNNING))
        {
            from(p, paused);
        }
    }

    private boolean mayFollow(final TaskRecord s, final TaskRecord t)
    {
        if (s.pendingDeps != 1 || s.status() != TaskStatus.BLOCKED || s.refs.length == 0 || s.saveTask() ||
            s.body == DiscardBody.INSTANCE || !synchronous(s) || (!sharedQueue && s.owner != t.owner))
        {
            return false;
        }
        for (final DataRef r : s.refs)
        {
            if (!holds(t, r) || r.object.residency() != Residency.IN_MEM)
            {
                return false;
            }
        }
        return true;
    }

    private static boolean synchronous(final TaskRecord t)
    {
        return !t.completesOnWorker && !(t.body instanceof AsyncTaskBody);
    }

    private static boolean holds(final TaskRecord t, final DataRef r)
    {
        for (final DataRef held : t.refs)
        {
            if (held == r)
            {
                return true;
            }
        }
        return false;
    }
}
