package dev.spillway.internal;

import dev.spillway.IoOrder;
import dev.spillway.SpillwayConfig;
import dev.spillway.memory.Residency;
import dev.spillway.spi.AsyncTaskBody;

/**
 * Hands successors to the worker of their predecessor, which runs them straight after it; the IO thread decides. When
 * a task is made ready, or its worker turns out to run it, its one successor that waits for nothing else and uses
 * only objects the task holds in DRAM is admitted at once and handed to the task ({@link TaskRecord#handOver}). The
 * worker claims it as the task's body returns and runs it next, so a chain of tasks on one object needs no round trip
 * through the IO thread and the ready queue per link. A successor the worker did not claim (the task failed, the
 * hand-over came too late, or the worker had claimed enough in a row) is taken back when the task's end is processed
 * and routed as any other.
 *
 * <p>Off when configured so ({@link dev.spillway.SpillwayConfig#handOvers}), under the strict arrival order
 * {@code f}, for the whole life of a runtime with a checkpoint store (cuts park tasks at admission), while admission
 * is paused, and for asynchronous tasks, whose worker does not wait for their end.
 */
final class HandOvers
{
    /** Successors handed over ahead of a running or ready task, at most. */
    static final int DEPTH = 8;

    private final boolean sharedQueue;
    private final boolean configured;
    private Admission admission;
    private TaskCompletion completion;
    private boolean enabled;

    HandOvers(final SpillwayConfig config)
    {
        this.sharedQueue = config.sharedReadyQueue();
        this.configured = config.handOvers() && config.ioOrder() != IoOrder.FIFO;
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
        if (!on(paused) || !synchronous(t))
        {
            return;
        }
        int depth = depth(t);
        TaskRecord tail = t;
        for (TaskRecord next; (next = tail.handedOverTask()) != null && depth < DEPTH; tail = next)
        {
            depth++;
        }
        for (TaskRecord s; depth < DEPTH && tail.nothingHandedOver() && (s = follower(tail)) != null; tail = s)
        {
            handOver(s, tail);
            depth++;
        }
    }

    /**
     * Task {@code s} was submitted: if its one unfinished predecessor is ready or running and ends a chain with room,
     * {@code s} may follow it. Only {@code s} is looked at, so submitting many successors of one task costs each O(1).
     */
    void submitted(final TaskRecord s, final boolean paused)
    {
        if (!on(paused) || s.pendingDeps != 1 || s.predecessors == null || s.predecessors.length != 1)
        {
            return;
        }
        final TaskRecord p = s.predecessors[0];
        final TaskStatus status = p.status();
        if (p.admitted && (status == TaskStatus.READY || status == TaskStatus.RUNNING) && synchronous(p) &&
            p.nothingHandedOver() && depth(p) < DEPTH && mayFollow(s, p))
        {
            handOver(s, p);
        }
    }

    private boolean on(final boolean paused)
    {
        return enabled && !paused && !completion.cancelling();
    }

    /** @return how many tasks were handed over in a row up to {@code t} (at most {@link #DEPTH}). */
    private static int depth(final TaskRecord t)
    {
        int depth = 0;
        for (TaskRecord by = t.handedOverBy; by != null && depth < DEPTH; by = by.handedOverBy)
        {
            depth++;
        }
        return depth;
    }

    private void handOver(final TaskRecord s, final TaskRecord to)
    {
        s.admittedByHandOver = true;
        admission.reserve(s);
        completion.admitted(s);
        completion.fetched();
        s.handedOverBy = to;
        s.status(TaskStatus.READY);
        to.handOver(s);
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

    private boolean mayFollow(final TaskRecord s, final TaskRecord t)
    {
        if (s.pendingDeps != 1 || s.status() != TaskStatus.BLOCKED || s.refs.length == 0 || s.saveTask() ||
            s.body == DiscardBody.INSTANCE || !synchronous(s) || (!sharedQueue && s.owner != t.owner))
        {
            return false;
        }
        for (final DataRef r : s.refs)
        {
            if (!t.test(r.object) || r.object.residency() != Residency.IN_MEM)
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
}
