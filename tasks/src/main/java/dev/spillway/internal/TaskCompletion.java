package dev.spillway.internal;

import dev.spillway.Privilege;
import dev.spillway.TaskFailedException;
import dev.spillway.memory.DataObject;
import dev.spillway.spi.AsyncTaskBody;

import java.util.ArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How tasks end, on the IO thread: a finished body's effects on its objects, failing or cancelling a task that did
 * not run, and the bookkeeping every end shares (references released, successors met, checkpoint chains, counts).
 * A task whose input was to be produced by a failed task fails without running, naming both.
 */
final class TaskCompletion
{
    private final LiveTasks live;
    private final Counters counters;
    private final ReadyQueues ready;
    private final Dependencies deps;
    private final AtomicLong finished = new AtomicLong();
    private Admission admission;
    private Checkpointer checkpointer;

    private boolean cancelling;
    private long tick;
    /** Admitted tasks not finished, those of them still waiting for transfers, and those the window counts. */
    private int inFlight;
    private int fetching;
    private int windowed;
    private int fetchingSaves;

    TaskCompletion(final LiveTasks live, final Counters counters, final ReadyQueues ready, final Dependencies deps)
    {
        this.live = live;
        this.counters = counters;
        this.ready = ready;
        this.deps = deps;
    }

    void wire(final Admission admission, final Checkpointer checkpointer)
    {
        this.admission = admission;
        this.checkpointer = checkpointer;
    }

    /** @return tasks finished through the IO thread (any thread may ask). */
    long finished()
    {
        return finished.get();
    }

    /** @return admitted tasks still waiting for transfers. */
    int fetching()
    {
        return fetching;
    }

    /** @return true once close cancels: tasks that have not started are cancelled instead of run. */
    boolean cancelling()
    {
        return cancelling;
    }

    /** Admission took DRAM and references for {@code t}, which now waits for its transfers. */
    void admitted(final TaskRecord t)
    {
        inFlight++;
        fetching++;
        if (countsInWindow(t))
        {
            windowed++;
        }
        else if (fetchesSave(t))
        {
            fetchingSaves++;
        }
    }

    /**
     * An asynchronous task (a transfer to or from another rank, an acquire) finishes when something outside acts, so
     * it never fills the admission window: else two ranks whose windows hold only sends to each other could wait
     * forever for each other's receives. Checkpoint saves have a lane of their own ({@link Admission}); a task handed
     * over took no DRAM ({@link HandOvers}).
     */
    private static boolean countsInWindow(final TaskRecord t)
    {
        return !(t.body instanceof AsyncTaskBody) && !t.saveTask() && !t.admittedByHandOver;
    }

    /** A save admitted when its object was not resident: it holds the save lane until written. */
    private static boolean fetchesSave(final TaskRecord t)
    {
        return t.saveTask() && t.needBytes > 0;
    }

    /** @return admitted, unfinished saves that had to fetch their object. */
    int fetchingSaves()
    {
        return fetchingSaves;
    }

    /** An admitted task's transfers are done. */
    void fetched()
    {
        fetching--;
    }

    /** @return admitted, unfinished tasks that are not asynchronous: what the admission window counts. */
    int windowed()
    {
        return windowed;
    }

    /** @return true if no admitted task is unfinished, so no reference will be released. */
    boolean idle()
    {
        return inFlight == 0;
    }

    /** A body finished, with {@code error} if it threw: applies its effects to its objects. */
    void done(final TaskRecord t, final Throwable error)
    {
        tick++;
        for (int i = 0; i < t.refs.length; i++)
        {
            final DataRef r = t.refs[i];
            final DataObject o = r.object;
            final Privilege p = t.privileges[i];
            o.release();
            o.touch(tick);
            if (p == Privilege.READ)
            {
                continue;
            }
            if (error == null && p != Privilege.SCRATCH)
            {
                admission.contents(o, false);
                o.unspillable(false);
                o.dirty(true);
                o.bumpVersion();
                r.poisonedBy = null;
            }
            else
            {
                o.dirty(false);
                admission.contents(o, true);
                if (error != null)
                {
                    r.poisonedBy = t;
                }
            }
        }
        if (error == null)
        {
            counters.completed++;
            finish(t, TaskStatus.DONE, null);
        }
        else
        {
            counters.failed++;
            finish(t, TaskStatus.FAILED, new TaskFailedException("task '" + t.name + "' (#" + t.seq + ") failed: " +
                error, error));
        }
    }

    /** A discard's turn came: drops its object's contents; it is done without running. */
    void discard(final TaskRecord t)
    {
        admission.discard(t.refs[0].object);
        counters.completed++;
        finish(t, TaskStatus.DONE, null);
    }

    /** A checkpoint save task has its object captured: releases the object, as a finished reader would. */
    void finishSave(final TaskRecord t)
    {
        final DataObject o = t.refs[0].object;
        o.release();
        o.touch(++tick);
        admission.changed();
        finish(t, TaskStatus.DONE, null);
    }

    /**
     * Fails {@code t} without running it if an input it reads was to be produced by a failed task.
     *
     * @return whether it failed.
     */
    boolean failIfPoisoned(final TaskRecord t)
    {
        final DataRef poisoned = poisonedInput(t);
        if (poisoned == null)
        {
            return false;
        }
        fail(t, new TaskFailedException("task '" + t.name + "' not run: its input '" + poisoned.tag() +
            "' was to be produced by failed task '" + poisoned.poisonedBy.name + "'" +
            rootCause(poisoned.poisonedBy.failure()),
            TaskRecord.rethrowable(poisoned.poisonedBy.failure()).getCause()));
        return true;
    }

    private static DataRef poisonedInput(final TaskRecord t)
    {
        for (int i = 0; i < t.refs.length; i++)
        {
            if (t.privileges[i].readsContents() && t.refs[i].poisonedBy != null)
            {
                return t.refs[i];
            }
        }
        return null;
    }

    /** @return ": " and the innermost message of {@code failure}, or nothing. */
    private static String rootCause(final Throwable failure)
    {
        Throwable root = failure;
        while (root != null && root.getCause() != null && root.getCause() != root)
        {
            root = root.getCause();
        }
        return root == null ? "" : ": " + (root.getMessage() == null ? root.toString() : root.getMessage());
    }

    /** Fails a task that did not run; what it would have produced is marked as lost. */
    void fail(final TaskRecord t, final TaskFailedException cause)
    {
        releaseRefs(t);
        for (int i = 0; i < t.refs.length; i++)
        {
            if (t.privileges[i] != Privilege.READ)
            {
                t.refs[i].poisonedBy = t;
            }
        }
        counters.failed++;
        finish(t, TaskStatus.FAILED, cause);
    }

    /** Cancels a task that did not start, for close. */
    void cancel(final TaskRecord t)
    {
        releaseRefs(t);
        counters.cancelled++;
        finish(t, TaskStatus.CANCELLED, new TaskFailedException("task '" + t.name +
            "' cancelled (by close(CANCEL) or cancelAll())"));
    }

    private void releaseRefs(final TaskRecord t)
    {
        if (!t.admitted)
        {
            return;
        }
        if (t.status() == TaskStatus.FETCHING)
        {
            fetching--;
        }
        for (final DataRef r : t.refs)
        {
            r.object.release();
            r.object.waiters().remove(t);
        }
    }

    private void finish(final TaskRecord t, final TaskStatus outcome, final Throwable cause)
    {
        if (t.admitted)
        {
            inFlight--;
            if (countsInWindow(t))
            {
                windowed--;
            }
            else if (fetchesSave(t))
            {
                fetchingSaves--;
            }
        }
        t.finish(outcome, cause);
        if (!t.completesOnWorker)
        {
            live.remove(t);
        }
        if (checkpointer != null)
        {
            if (!t.saveTask() && t.refs.length > 0)
            {
                written(t, outcome == TaskStatus.DONE);
                checkpointer.userFinished(t, outcome == TaskStatus.DONE);
            }
            else if (outcome != TaskStatus.DONE)
            {
                checkpointer.saveLost(t);
            }
        }
        deps.finished(t);
        Counters.add(finished, 1);
    }

    /** A writer finished: it leaves its objects' chains of unfinished writers (in order, but for cancellations). */
    private static void written(final TaskRecord t, final boolean ok)
    {
        for (int i = 0; i < t.refs.length; i++)
        {
            final Privilege p = t.privileges[i];
            if (p == Privilege.READ)
            {
                continue;
            }
            final DataRef r = t.refs[i];
            if (r.unfinishedWriters().peekFirst() == t)
            {
                r.unfinishedWriters().pollFirst();
            }
            else
            {
                r.unfinishedWriters().remove(t);
            }
            if (ok)
            {
                r.writesSinceSave++;
                r.ioHasContents = p != Privilege.SCRATCH;
            }
        }
    }

    /** Close cancels: fails every task not yet running (blocked, gated, pending, fetching or ready). */
    void cancelAll()
    {
        cancelling = true;
        final ArrayList<TaskRecord> notStarted = new ArrayList<>();
        admission.drainPending(notStarted);
        live.copyTo(notStarted);
        for (final TaskRecord t : notStarted)
        {
            final TaskStatus s = t.status();
            if (s == TaskStatus.BLOCKED || s == TaskStatus.GATED || s == TaskStatus.PENDING || s == TaskStatus.FETCHING)
            {
                cancel(t);
            }
            else if (t.handedOverBy != null && t.handedOverBy.takeBack(t))
            {
                t.handedOverBy = null;
                cancel(t);
            }
        }
        ready.drain(t ->
        {
            if (t.casStatus(TaskStatus.READY, TaskStatus.CANCELLED))
            {
                cancel(t);
            }
        });
    }
}
