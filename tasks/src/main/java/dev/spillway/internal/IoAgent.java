package dev.spillway.internal;

import com.lmax.disruptor.EventPoller;
import dev.spillway.Privilege;
import dev.spillway.TaskFailedException;
import dev.spillway.memory.DataObject;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The IO thread's duty cycle. It is the single writer of all engine state: it takes submissions and completions
 * from the request ring, infers dependencies, runs admission and transfers, and hands tasks whose data is resident
 * to the ready queues.
 *
 * <p>Dependencies follow submission order: a READ waits for the object's last exclusive user; an exclusive access
 * (WRITE, READ_WRITE, SCRATCH) waits for the last exclusive user and every reader since. A task whose input was to
 * be produced by a failed task fails without running, naming both.
 */
final class IoAgent implements Agent
{
    private final Engine engine;
    private final EventPoller<EngineEvent> poller;
    private final EventPoller.Handler<EngineEvent> handler = this::onEvent;
    private final ReadyQueues ready;
    private final LiveTasks live;
    private final Counters counters;
    private final ArrayDeque<TaskRecord> depsMet = new ArrayDeque<>();
    private final ArrayList<TaskRecord> scratchPreds = new ArrayList<>();
    private final AtomicLong finished = new AtomicLong();
    private Admission admission;
    private Transfers transfers;
    private Checkpointer checkpointer;

    private boolean cancelling;
    private long tick;
    private int fetching;
    private int inFlight;
    private volatile int awaitingData;
    private volatile boolean paused;

    IoAgent(final Engine engine, final EventPoller<EngineEvent> poller, final ReadyQueues ready, final LiveTasks live,
        final Counters counters)
    {
        this.engine = engine;
        this.poller = poller;
        this.ready = ready;
        this.live = live;
        this.counters = counters;
    }

    void wire(final Admission admission, final Transfers transfers, final Checkpointer checkpointer)
    {
        this.admission = admission;
        this.transfers = transfers;
        this.checkpointer = checkpointer;
    }

    /** @return tasks finished through the IO thread (any thread may ask). */
    long finished()
    {
        return finished.get();
    }

    /** @return tasks waiting for DRAM or a transfer, as last seen (any thread may ask). */
    int awaitingData()
    {
        return awaitingData;
    }

    /** @return true while admission is paused (any thread may ask). */
    boolean paused()
    {
        return paused;
    }

    /** @return tasks queued for admission; racy when read off the IO thread, for reports only. */
    int pendingCount()
    {
        return admission.pendingCount();
    }

    /** @return transfers queued; racy when read off the IO thread, for reports only. */
    int transfersQueued()
    {
        return transfers.size();
    }

    @Override
    public String roleName()
    {
        return "spillway-io";
    }

    @Override
    public int doWork() throws Exception
    {
        if (engine.fatal() != null)
        {
            throw new AgentTerminationException("stopped after an internal error: " + engine.fatal());
        }
        int work = poller.poll(handler) == EventPoller.PollState.PROCESSING ? 1 : 0;
        work += drainDepsMet();
        if (!paused)
        {
            work += admission.admit();
        }
        work += moveData();
        if (work == 0 && !paused)
        {
            work += admission.lookAhead();
        }
        awaitingData = admission.pendingCount() + fetching;
        if (work > 0)
        {
            engine.quiesceCheck();
        }
        return work;
    }

    /** Runs one checkpoint write or one transfer; with both waiting, checkpoint writes get their share of bytes. */
    private int moveData()
    {
        final Checkpointer c = checkpointer;
        if (c == null)
        {
            return transfer();
        }
        c.tick(System.nanoTime());
        final boolean transfersWaiting = !transfers.isEmpty();
        if (c.hasWrites() && c.ckptTurn(transfersWaiting))
        {
            c.writeOne(transfersWaiting);
            return 1;
        }
        final int bytes = transfers.runOne();
        if (bytes == 0)
        {
            return 0;
        }
        if (c.hasWrites())
        {
            c.transferWhileWaiting(bytes);
        }
        admission.changed();
        return 1;
    }

    private int transfer()
    {
        if (transfers.runOne() == 0)
        {
            return 0;
        }
        admission.changed();
        return 1;
    }

    private boolean onEvent(final EngineEvent e, final long sequence, final boolean endOfBatch)
    {
        final TaskRecord t = e.task;
        switch (e.kind)
        {
            case SUBMIT -> onSubmit(t);
            case DONE ->
            {
                onDone(t, e.error);
                admission.changed();
            }
            case GATE_OPEN ->
            {
                onGateOpen(t, e.error);
                admission.changed();
            }
            case PAUSE -> paused = true;
            case RESUME ->
            {
                paused = false;
                admission.changed();
            }
            case CANCEL_ALL -> cancelAll();
        }
        e.clear();
        return true;
    }

    /**
     * Submits a checkpoint save task, created on the IO thread: it waits only for {@code lastWriter} (the object's
     * last writer before the cut, or null) and leaves the object's dependency state alone.
     */
    void submitSave(final TaskRecord t, final TaskRecord lastWriter)
    {
        live.add(t);
        if (lastWriter != null && !lastWriter.isDone())
        {
            edge(lastWriter, t, scratchPreds);
            t.predecessors = scratchPreds.toArray(new TaskRecord[0]);
            scratchPreds.clear();
        }
        if (t.pendingDeps == 0)
        {
            depsMet.add(t);
        }
    }

    private void onSubmit(final TaskRecord t)
    {
        live.add(t);
        final ArrayList<TaskRecord> preds = scratchPreds;
        final boolean discard = t.body == DiscardBody.INSTANCE;
        for (int i = 0; i < t.refs.length; i++)
        {
            final DataRef r = t.refs[i];
            if (!discard)
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
                if (r.readers.size() >= 64)
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
                if (checkpointer != null && !t.saveTask())
                {
                    r.unfinishedWriters().addLast(t);
                }
            }
        }
        if (t.refs.length > 0 && !discard)
        {
            admission.submitted(t);
        }
        if (!preds.isEmpty())
        {
            t.predecessors = preds.toArray(new TaskRecord[0]);
            preds.clear();
        }
        if (t.pendingDeps == 0)
        {
            depsMet.add(t);
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

    private int drainDepsMet()
    {
        int n = 0;
        TaskRecord t;
        while ((t = depsMet.poll()) != null)
        {
            n++;
            if (t.status() != TaskStatus.BLOCKED)
            {
                continue;
            }
            if (cancelling)
            {
                cancel(t);
                continue;
            }
            final DataRef poisoned = poisonedInput(t);
            if (poisoned != null)
            {
                fail(t, new TaskFailedException("task '" + t.name + "' not run: its input '" + poisoned.tag() +
                    "' was to be produced by failed task '" + poisoned.poisonedBy.name + "'" +
                    rootCause(poisoned.poisonedBy.failure()),
                    TaskRecord.rethrowable(poisoned.poisonedBy.failure()).getCause()));
            }
            else if (t.refs.length == 0)
            {
                makeReady(t);
            }
            else if (t.body == DiscardBody.INSTANCE)
            {
                admission.discard(t.refs[0].object);
                counters.completed++;
                finish(t, TaskStatus.DONE, null);
            }
            else if (t.body instanceof AsyncTaskBody async)
            {
                gate(t, async);
            }
            else
            {
                admission.enqueue(t);
            }
        }
        return n;
    }

    /** Holds an asynchronous task out of admission, so it takes no DRAM, until its gate opens. */
    private void gate(final TaskRecord t, final AsyncTaskBody body)
    {
        final CompletableFuture<?> gate;
        try
        {
            gate = body.gate();
        }
        catch (final RuntimeException e)
        {
            fail(t, new TaskFailedException("task '" + t.name + "' failed: " + e, e));
            return;
        }
        if (gate == null)
        {
            admission.enqueue(t);
            return;
        }
        t.status(TaskStatus.GATED);
        gate.whenComplete((ignored, failure) -> engine.publish(EngineEvent.Kind.GATE_OPEN, t,
            Completions.cause(failure)));
    }

    private void onGateOpen(final TaskRecord t, final Throwable failure)
    {
        if (t.status() != TaskStatus.GATED)
        {
            return;
        }
        if (failure != null)
        {
            fail(t, new TaskFailedException("task '" + t.name + "' (#" + t.seq + ") failed: " + failure, failure));
        }
        else
        {
            admission.enqueue(t);
        }
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

    /** Admission took DRAM and references for {@code t}; it may already have everything. */
    void admitted(final TaskRecord t)
    {
        inFlight++;
        fetching++;
        if (t.outstanding == 0)
        {
            dataReady(t);
        }
    }

    /** The last transfer {@code t} waited for is done. */
    void dataReady(final TaskRecord t)
    {
        fetching--;
        makeReady(t);
    }

    private void makeReady(final TaskRecord t)
    {
        if (cancelling)
        {
            cancel(t);
            return;
        }
        if (t.saveTask())
        {
            checkpointer.capture(t);
            return;
        }
        t.status(TaskStatus.READY);
        ready.offer(t);
    }

    private void onDone(final TaskRecord t, final Throwable error)
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
                o.discardable(false);
                o.unspillable(false);
                o.dirty(true);
                o.bumpVersion();
                r.poisonedBy = null;
            }
            else
            {
                o.dirty(false);
                o.discardable(true);
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

    /** A checkpoint save task has its object captured: releases the object, as a finished reader would. */
    void finishSave(final TaskRecord t)
    {
        final DataObject o = t.refs[0].object;
        o.release();
        o.touch(++tick);
        admission.changed();
        finish(t, TaskStatus.DONE, null);
    }

    /** A task held back by a checkpoint may be admitted. */
    void unpark(final TaskRecord t)
    {
        admission.enqueue(t);
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

    private void cancel(final TaskRecord t)
    {
        releaseRefs(t);
        counters.cancelled++;
        finish(t, TaskStatus.CANCELLED, new TaskFailedException("task '" + t.name + "' cancelled by close()"));
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

    /** @return true if no admitted task is unfinished, so no reference will be released. */
    boolean idle()
    {
        return inFlight == 0;
    }

    private void finish(final TaskRecord t, final TaskStatus outcome, final Throwable cause)
    {
        if (t.admitted)
        {
            inFlight--;
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
        final ArrayList<TaskRecord> succ = t.successors;
        t.successors = null;
        if (succ != null)
        {
            for (int i = 0, n = succ.size(); i < n; i++)
            {
                final TaskRecord s = succ.get(i);
                if (--s.pendingDeps == 0)
                {
                    depsMet.add(s);
                }
            }
        }
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

    /** Fails every task not yet running: blocked, pending, fetching or ready. */
    private void cancelAll()
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
