package dev.spillway.internal;

import com.lmax.disruptor.EventPoller;
import dev.spillway.SpillwayConfig;
import dev.spillway.TaskFailedException;
import dev.spillway.spi.AsyncTaskBody;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;

import java.util.concurrent.CompletableFuture;

/**
 * The IO thread's duty cycle. It is the single writer of all engine state: it takes submissions and completions
 * from the request ring, infers dependencies ({@link Dependencies}), runs admission and transfers, hands tasks whose
 * data is resident to the ready queues, and records how tasks end ({@link TaskCompletion}).
 */
final class IoAgent implements Agent
{
    private final Engine engine;
    private final EventPoller<EngineEvent> poller;
    private final EventPoller.Handler<EngineEvent> handler = this::onEvent;
    private final ReadyQueues ready;
    private final LiveTasks live;
    private final Dependencies deps = new Dependencies();
    private final TaskCompletion completion;
    private final HandOvers handOvers;
    /** Null unless tracing. */
    private final TraceSamples samples;
    private Admission admission;
    private Transfers transfers;
    private Checkpointer checkpointer;

    private volatile int awaitingData;
    private volatile boolean paused;
    /** IO thread: admission is held while the ranks agree on a cut ({@code Engine.holdAdmission}). */
    private boolean heldForCut;

    IoAgent(final Engine engine, final EventPoller<EngineEvent> poller, final ReadyQueues ready, final LiveTasks live,
        final Counters counters, final TraceSamples samples, final SpillwayConfig config)
    {
        this.samples = samples;
        this.engine = engine;
        this.poller = poller;
        this.ready = ready;
        this.live = live;
        this.completion = new TaskCompletion(live, counters, ready, deps);
        this.handOvers = new HandOvers(config);
    }

    void wire(final Admission admission, final Transfers transfers, final Checkpointer checkpointer)
    {
        this.admission = admission;
        this.transfers = transfers;
        this.checkpointer = checkpointer;
        completion.wire(admission, checkpointer);
        handOvers.wire(admission, completion, checkpointer != null);
    }

    /** @return tasks finished through the IO thread (any thread may ask). */
    long finished()
    {
        return completion.finished();
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
        if (samples != null)
        {
            samples.tick(System.nanoTime());
        }
        int work = poller.poll(handler) == EventPoller.PollState.PROCESSING ? 1 : 0;
        work += drainDepsMet();
        if (!paused && !heldForCut)
        {
            work += admission.admit();
        }
        work += moveData();
        if (work == 0 && !paused)
        {
            work += admission.lookAhead();
        }
        awaitingData = admission.pendingCount() + completion.fetching();
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
                completion.done(t, e.error);
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
            case CANCEL_ALL -> completion.cancelAll();
            case CUT -> checkpointer.requested(e.cut);
            case HOLD_FOR_CUT ->
            {
                heldForCut = true;
                e.front.complete(checkpointer == null ? 0 : checkpointer.admissionFront());
            }
            case RELEASE_HOLD ->
            {
                heldForCut = false;
                admission.changed();
            }
        }
        e.clear();
        return true;
    }

    private void onSubmit(final TaskRecord t)
    {
        live.add(t);
        final boolean discard = t.body == DiscardBody.INSTANCE;
        deps.submitted(t, !discard, checkpointer != null);
        if (t.refs.length > 0 && !discard)
        {
            admission.submitted(t);
            handOvers.submitted(t, paused);
        }
    }

    /**
     * Submits a checkpoint save task, created on the IO thread: it waits only for {@code lastWriter} (the object's
     * last writer before the cut, or null) and leaves the object's dependency state alone.
     */
    void submitSave(final TaskRecord t, final TaskRecord lastWriter)
    {
        live.add(t);
        deps.submittedSave(t, lastWriter);
    }

    /** Routes each task whose dependencies are met: cancelled, failed, done, gated, ready or on to admission. */
    private int drainDepsMet()
    {
        int n = 0;
        TaskRecord t;
        while ((t = deps.pollMet()) != null)
        {
            n++;
            if (t.handedOverBy != null)
            {
                routeHandedOver(t);
                continue;
            }
            if (t.status() != TaskStatus.BLOCKED)
            {
                continue;
            }
            if (completion.cancelling())
            {
                completion.cancel(t);
                continue;
            }
            if (completion.failIfPoisoned(t))
            {
                continue;
            }
            if (t.refs.length == 0)
            {
                makeReady(t);
            }
            else if (t.body == DiscardBody.INSTANCE)
            {
                completion.discard(t);
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

    /**
     * The predecessor of {@code t}, handed over to its worker, has ended: the worker runs {@code t} (its own successor
     * may follow it), or, if it did not claim it, {@code t} is routed as an admitted task whose data is resident.
     */
    private void routeHandedOver(final TaskRecord t)
    {
        final boolean claimed = !t.handedOverBy.takeBack(t);
        t.handedOverBy = null;
        if (claimed)
        {
            handOvers.from(t, paused);
        }
        else if (!completion.failIfPoisoned(t))
        {
            makeReady(t);
        }
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
            completion.fail(t, new TaskFailedException("task '" + t.name + "' failed: " + e, e));
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
            completion.fail(t, new TaskFailedException("task '" + t.name + "' (#" + t.seq + ") failed: " + failure,
                failure));
        }
        else
        {
            admission.enqueue(t);
        }
    }

    /** Admission took DRAM and references for {@code t}; it may already have everything. */
    void admitted(final TaskRecord t)
    {
        completion.admitted(t);
        if (t.outstanding == 0)
        {
            dataReady(t);
        }
    }

    /** The last transfer {@code t} waited for is done. */
    void dataReady(final TaskRecord t)
    {
        completion.fetched();
        makeReady(t);
    }

    private void makeReady(final TaskRecord t)
    {
        if (completion.cancelling())
        {
            completion.cancel(t);
            return;
        }
        if (t.saveTask())
        {
            checkpointer.capture(t);
            return;
        }
        t.status(TaskStatus.READY);
        handOvers.from(t, paused);
        ready.offer(t);
    }

    /** A checkpoint save task has its object captured: releases the object, as a finished reader would. */
    void finishSave(final TaskRecord t)
    {
        completion.finishSave(t);
    }

    /** A task held back by a checkpoint may be admitted, unless it was cancelled meanwhile. */
    void unpark(final TaskRecord t)
    {
        if (!t.status().terminal())
        {
            admission.enqueue(t);
        }
    }

    /** Fails a task that did not run; what it would have produced is marked as lost. */
    void fail(final TaskRecord t, final TaskFailedException cause)
    {
        completion.fail(t, cause);
    }

    /** @return the admission window in tasks ({@link Integer#MAX_VALUE}: none). */
    int window()
    {
        return admission.window();
    }

    /** @return admitted, unfinished tasks the admission window counts; racy when read off the IO thread. */
    int windowed()
    {
        return completion.windowed();
    }

    /** @return admitted, unfinished checkpoint saves that had to fetch their object. */
    int fetchingSaves()
    {
        return completion.fetchingSaves();
    }

    /** @return true if no admitted task is unfinished, so no reference will be released. */
    boolean idle()
    {
        return completion.idle();
    }
}
