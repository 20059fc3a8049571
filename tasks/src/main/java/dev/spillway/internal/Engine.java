package dev.spillway.internal;

import com.lmax.disruptor.EventPoller;
import com.lmax.disruptor.EventTranslatorOneArg;
import com.lmax.disruptor.EventTranslatorThreeArg;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.YieldingWaitStrategy;
import dev.spillway.CloseMode;
import dev.spillway.CloseReport;
import dev.spillway.Data;
import dev.spillway.IoOrder;
import dev.spillway.SpillwayConfig;
import dev.spillway.SpillwayStats;
import dev.spillway.TaskBuilder;
import dev.spillway.TaskFailedException;
import dev.spillway.TaskHandle;
import dev.spillway.checkpoint.CheckpointMode;
import dev.spillway.checkpoint.CheckpointReport;
import dev.spillway.io.Store;
import dev.spillway.io.StoreSettings;
import dev.spillway.io.Stores;
import dev.spillway.memory.BufferPool;
import dev.spillway.memory.DramBudget;
import dev.spillway.memory.ResidentObjects;
import dev.spillway.memory.TileBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static java.lang.System.Logger.Level.WARNING;

/**
 * The runtime behind {@link dev.spillway.Spillway}; internal API. It opens the store, builds the budget and the
 * pool, starts the IO thread ({@link IoAgent}) and the workers, and serves callers: declaring data, submitting,
 * waiting, reporting and closing. Submissions and completions reach the IO thread through a Disruptor
 * multi-producer ring; tasks without data skip it.
 *
 * <p>The concerns it wires together live beside it: {@link Submissions} (the ordered intake) with
 * {@link SubmitChecks} (what a declaration or a submission must satisfy), {@link Restart} (resuming from a
 * checkpoint), {@link Quiescence} (waiting for every task), {@link WaitReports} (what unfinished tasks wait for),
 * {@link Totals} (stats and close reports), {@link FatalError} and {@link AgentThreads}.
 */
public final class Engine
{
    private static final System.Logger LOG = System.getLogger(Engine.class.getName());
    private static final EventTranslatorThreeArg<EngineEvent, EngineEvent.Kind, TaskRecord, Throwable> TRANSLATOR =
        (e, seq, kind, task, error) ->
        {
            e.kind = kind;
            e.task = task;
            e.error = error;
        };
    private static final EventTranslatorOneArg<EngineEvent, CutRequest> CUT_TRANSLATOR = (e, seq, cut) ->
    {
        e.kind = EngineEvent.Kind.CUT;
        e.cut = cut;
    };
    private static final EventTranslatorOneArg<EngineEvent, CompletableFuture<Long>> HOLD_TRANSLATOR =
        (e, seq, front) ->
        {
            e.kind = EngineEvent.Kind.HOLD_FOR_CUT;
            e.front = front;
        };
    private static final long HOLD_POLL_MS = 100;
    /** Tiles are page-aligned whatever the store needs, so DRAM accounting is the same for every store. */
    private static final int PAGE = 4096;

    final Counters counters = new Counters();
    final FailureLog failures = new FailureLog();

    private final SpillwayConfig config;
    private final Store store;
    private final BufferPool pool;
    private final RingBuffer<EngineEvent> ring;
    private final ReadyQueues ready;
    private final Worker[] workers;
    private final IoAgent agent;
    private final WakeableIdleStrategy ioIdle;
    private final AgentThreads threads;
    private final Trace trace;
    private final ConcurrentHashMap<String, DataRef> objects = new ConcurrentHashMap<>();
    private final LiveTasks live = new LiveTasks();
    private final Object closeLock = new Object();
    private final Checkpointer checkpointer;
    private final SubmitChecks checks;
    private final Submissions submissions;
    private final Quiescence quiescence;
    private final WaitReports waits;
    private final Totals totals;
    private final FatalError fatal = new FatalError();
    /** Set once the threads stopped: the IO thread answers nothing more. */
    private volatile boolean stopped;

    /** Under the close lock. */
    private CloseReport closeReport;

    /** Opens the store, allocates the ring and starts the IO thread and the workers. */
    public Engine(final SpillwayConfig config)
    {
        this.config = config;
        final long restoreStart = System.nanoTime();
        final Restart restart = new Restart(Restart.find(config.checkpointStore()));
        final double restoreSeconds = (System.nanoTime() - restoreStart) / 1e9;
        if (restart.point() != null && config.checkpointPolicy() != null)
        {
            config.checkpointPolicy().restored(restart.point());
        }
        try
        {
            final Store spill = Stores.open(config.storeKind(), new StoreSettings(config.storeDir(), config.diskCap(),
                config.storeAverageBlock(), config.storeMaxBlocks()));
            store = restart.point() == null ? spill : new RestoringStore(spill, restart.point());
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot open the " + config.storeKind() + " store in " +
                config.storeDir() + ": " + e.getMessage(), e);
        }
        final DramBudget budget = new DramBudget(config.dramBudget());
        final long stagingBytes = store.stagingBytes();
        budget.chargeStaging(stagingBytes);
        pool = new BufferPool(budget, Math.max(PAGE, store.alignment()));
        if (config.poisonReleasedBuffers())
        {
            pool.poison(fatal::bufferMisused);
        }
        checks = new SubmitChecks(this, pool, stagingBytes);
        final LiveData liveData = new LiveData(pool, stagingBytes);
        ring = RingBuffer.createMultiProducer(EngineEvent::new, config.ringSize(), new YieldingWaitStrategy());
        final EventPoller<EngineEvent> poller = ring.newPoller();
        ring.addGatingSequences(poller.getSequence());

        final int n = config.workers();
        ready = new ReadyQueues(n, config.sharedReadyQueue(), config.idleMaxParkNanos());
        workers = new Worker[n];
        final String[] rows = new String[n + 1];
        rows[0] = "IO thread";
        for (int i = 0; i < n; i++)
        {
            workers[i] = new Worker(this, i, ready.queueOf(i), ready.idleOf(i), config.pinWorkers());
            rows[i + 1] = "worker " + i;
        }
        final TraceSamples samples = config.traceFile() == null ? null :
            new TraceSamples(counters, pool, stagingBytes);
        trace = samples == null ? null : new Trace(samples, rows);

        agent = new IoAgent(this, poller, ready, live, counters, samples, config);
        quiescence = new Quiescence(() -> finished(agent, workers));
        waits = new WaitReports(agent, live, budget, config.ioOrder(), n, quiescence,
            this::checkpointWait, failures::describe);
        totals = new Totals(counters, workers, agent, budget, store.name());
        final ResidentObjects resident = new ResidentObjects(config.cleanFirstEviction(),
            config.ioOrder() == IoOrder.PRIORITY);
        final Transfers transfers = new Transfers(agent, store, pool, resident, counters, trace);
        final Admission admission = new Admission(agent, transfers, pool, resident, counters, liveData, config);
        checkpointer = config.checkpointStore() == null ? null : new Checkpointer(this, config.checkpointStore(),
            config.checkpointPolicy(), config.checkpointMode(), config.checkpointIoShare(), pool, objects.values(),
            restart.point(), restoreSeconds);
        if (checkpointer != null)
        {
            checkpointer.wire(agent, admission, live, transfers);
            admission.checkpointer(checkpointer,
                config.checkpointMode() == CheckpointMode.BLOCKING ? Integer.MAX_VALUE : 1);
        }
        agent.wire(admission, transfers, checkpointer);
        submissions = new Submissions(this, objects, checks, restart, checkpointer != null,
            checkpointer != null && config.checkpointPolicy().cutsBehindSubmission(), quiescence, ready, n, fatal,
            liveData);

        ioIdle = new WakeableIdleStrategy(() -> ring.getCursor() > poller.getSequence().get(),
            config.idleMaxParkNanos());
        threads = new AgentThreads(agent, ioIdle, workers, ready, fatal::agentFailed);
    }

    private String checkpointWait()
    {
        return checkpointer == null ? null : checkpointer.checkpointWait();
    }

    /** Declares a data object. */
    public Data data(final String tag, final int size)
    {
        return submissions.declare(tag, size, false);
    }

    /** Declares a data object that stays in DRAM once written. */
    public Data pinnedData(final String tag, final int size)
    {
        return submissions.declare(tag, size, true);
    }

    /** @return the budget charge of a resident object of {@code bytes}. */
    public long dramCharge(final int bytes)
    {
        if (bytes <= 0 || bytes > pool.largestSize())
        {
            throw new IllegalArgumentException("bytes must be in 1.." + pool.largestSize() + ", got " + bytes);
        }
        return pool.cost(bytes);
    }

    /** @return the declared object of {@code tag}, or null. */
    public Data lookup(final String tag)
    {
        return objects.get(tag);
    }

    /** Starts a task declaration. */
    public TaskBuilder task(final String name)
    {
        checkFatal();
        return new TaskBuilderImpl(name, (n, body, data, privileges, priority) ->
            submissions.submit(n, body, (DataRef[])data, privileges, priority));
    }

    /** Submits the discard of {@code data}: after every earlier task using it, its contents are dropped. */
    public TaskHandle discard(final Data data)
    {
        final DataRef ref = checks.own(data, "discard");
        if (ref.object.pinned())
        {
            throw new IllegalArgumentException("pinned data '" + ref.tag() + "' cannot be discarded: it stays in " +
                "DRAM until the runtime closes");
        }
        return task("discard '" + ref.tag() + "'").scratch(ref).submit(DiscardBody.INSTANCE);
    }

    /** Waits until {@code data}'s latest contents are resident and holds them for the caller. */
    public dev.spillway.Acquired acquire(final Data data)
    {
        final DataRef ref = checks.own(data, "acquire");
        refuseWaitInsideTask("acquire('" + ref.tag() + "')");
        final AcquiredView view = new AcquiredView(ref);
        final TaskHandle handle = task("acquire '" + ref.tag() + "'").read(ref).submit(view);
        view.awaitStart(handle.toCompletableFuture(), this::checkFatal);
        return view;
    }

    /** IO thread: an internal task (a checkpoint save) joins the count awaited by {@link #awaitAll}. */
    void countInternal()
    {
        quiescence.internalSubmitted();
    }

    /** @return tasks finished through the IO thread and, without data, on the workers. */
    private static long finished(final IoAgent agent, final Worker[] workers)
    {
        long done = agent.finished();
        for (final Worker w : workers)
        {
            done += w.completed.get() + w.failed.get();
        }
        return done;
    }

    /** Worker side of a task without data ({@link Submissions}): records the outcome. */
    void finishOnWorker(final TaskRecord t, final Throwable error, final Worker w)
    {
        if (error == null)
        {
            t.finish(TaskStatus.DONE, null);
            Counters.add(w.completed, 1);
        }
        else
        {
            t.finish(TaskStatus.FAILED, new TaskFailedException("task '" + t.name + "' (#" + t.seq + ") failed: " +
                error, error));
            Counters.add(w.failed, 1);
        }
    }

    /** IO thread or worker, after finishing tasks: wakes callers waiting for every task if none is left. */
    void quiesceCheck()
    {
        quiescence.check();
    }

    void publish(final EngineEvent.Kind kind, final TaskRecord task, final Throwable error)
    {
        ring.publishEvent(TRANSLATOR, kind, task, error);
        ioIdle.wake();
    }

    /** Under the submission lock: passes a cut request to the IO thread, after every earlier submission. */
    void publish(final CutRequest cut)
    {
        ring.publishEvent(CUT_TRANSLATOR, cut);
        ioIdle.wake();
    }

    /** See {@code Spillway.checkpointHere}. */
    public void checkpointHere(final long globalIndex)
    {
        submissions.requestCut(globalIndex);
    }

    /** See {@code Spillway.holdAdmission}. */
    public long holdAdmission()
    {
        final CompletableFuture<Long> front = new CompletableFuture<>();
        ring.publishEvent(HOLD_TRANSLATOR, front);
        ioIdle.wake();
        while (true)
        {
            fatal.check();
            if (stopped && !front.isDone())
            {
                throw new IllegalStateException("the runtime closed while admission was held for a cut");
            }
            try
            {
                return front.get(HOLD_POLL_MS, TimeUnit.MILLISECONDS);
            }
            catch (final TimeoutException e)
            {
                // The IO thread answers within a duty cycle; a failed engine is found by the check above.
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while holding admission for a cut", e);
            }
            catch (final ExecutionException e)
            {
                throw new IllegalStateException("holding admission for a cut: " + e.getCause(), e.getCause());
            }
        }
    }

    /** See {@code Spillway.checkpointAt}. */
    public void checkpointAt(final long frontier, final long globalIndex)
    {
        try
        {
            submissions.requestCutAt(frontier, globalIndex);
        }
        finally
        {
            releaseAdmissionHold();
        }
    }

    /** See {@code Spillway.releaseAdmissionHold}. */
    public void releaseAdmissionHold()
    {
        publish(EngineEvent.Kind.RELEASE_HOLD, null, null);
    }

    /** See {@code Spillway.cancelAll}. */
    public void cancelAll()
    {
        publish(EngineEvent.Kind.CANCEL_ALL, null, null);
    }

    /** Holds admission: submissions are tracked but nothing new is admitted until {@link #resume()}. */
    public void pause()
    {
        submissions.paused(true);
    }

    /** Ends a {@link #pause()}. */
    public void resume()
    {
        submissions.paused(false);
    }

    /**
     * Waits until every submitted task is done, then throws the failures not reported before, naming the first in
     * submission order; a null timeout waits indefinitely, reporting stalls.
     */
    public void awaitAll(final Duration timeout)
    {
        refuseWaitInsideTask("awaitAll()");
        quiescence.await(timeout, this::checkFatal, waits::describeWaits);
        final TaskFailedException failed = failures.takeUnreported();
        if (failed != null)
        {
            throw failed;
        }
    }

    /**
     * @throws IllegalStateException if the calling thread is running a task body of this runtime: the body would wait
     *                               for tasks that may need its worker.
     */
    void refuseWaitInsideTask(final String what)
    {
        final TaskRecord running = Worker.runningOnThisThread(this);
        if (running != null)
        {
            throw new IllegalStateException("task '" + running.name + "' (#" + running.seq + ") called " + what +
                " from inside its body, which holds a worker and could wait forever: declare the dependency " +
                "through data instead (the other task writes an object this one reads)");
        }
    }

    /** @return the internal error that stopped the runtime, or {@code null}. */
    Throwable fatal()
    {
        return fatal.get();
    }

    void checkFatal()
    {
        fatal.check();
    }

    /** @return one line per unfinished task (at most {@code limit}) saying what it waits for. */
    public String describeWaits(final int limit)
    {
        return waits.describeWaits(limit);
    }

    String describe(final TaskRecord t)
    {
        return waits.describe(t);
    }

    int tasksAwaitingData()
    {
        return agent.awaitingData();
    }

    /** @return a snapshot of the counters. */
    public SpillwayStats stats()
    {
        return totals.stats();
    }

    /** Takes no further checkpoints. */
    public void stopCheckpoints()
    {
        if (checkpointer != null)
        {
            checkpointer.stop();
        }
    }

    /** @return what checkpointing did; {@code enabled} is false when it is off. */
    public CheckpointReport checkpointReport()
    {
        return checkpointer == null ? new CheckpointReport(false, config.checkpointMode(), "off", 0, 0, 0, 0, 0, 0, 0,
            -1, 0, 0, 0, 0, 0, 0, "") : checkpointer.report(config.checkpointMode());
    }

    /** @return the configuration this runtime was opened with. */
    public SpillwayConfig config()
    {
        return config;
    }

    /** Drains or cancels, stops every thread, removes spill files and frees DRAM. Idempotent. */
    public CloseReport close(final CloseMode mode)
    {
        if (mode == null)
        {
            throw new NullPointerException("close mode is null");
        }
        final TaskRecord running = Worker.runningOnThisThread(this);
        if (running != null)
        {
            throw new IllegalStateException("task '" + running.name + "' (#" + running.seq + ") called close() " +
                "from inside its body: close the runtime from outside its tasks, after awaitAll()");
        }
        synchronized (closeLock)
        {
            return submissions.close() ? shutDown(mode) : closeReport;
        }
    }

    private CloseReport shutDown(final CloseMode mode)
    {
        final long cancelledBefore = counters.cancelled;
        if (mode == CloseMode.CANCEL)
        {
            publish(EngineEvent.Kind.CANCEL_ALL, null, null);
        }
        resume();
        try
        {
            if (fatal() == null)
            {
                quiescence.await(null, this::checkFatal, waits::describeWaits);
            }
        }
        finally
        {
            threads.stop();
            stopped = true;
            closeReport = totals.closeReport(mode, counters.cancelled - cancelledBefore);
            if (checkpointer != null)
            {
                checkpointer.close(mode == CloseMode.DRAIN && closeReport.failed() == 0 &&
                    closeReport.cancelled() == 0 && fatal() == null);
            }
            releaseAll();
        }
        checkFatal();
        return closeReport;
    }

    /** After the threads stopped: frees every buffer, removes the spill files and writes the trace. */
    private void releaseAll()
    {
        if (trace != null)
        {
            trace.stopped();
        }
        for (final DataRef r : objects.values())
        {
            final TileBuffer b = r.object.buffer();
            if (b != null)
            {
                r.object.buffer(null);
                pool.release(b, r.tag());
            }
        }
        pool.close();
        try
        {
            store.close();
        }
        catch (final IOException e)
        {
            LOG.log(WARNING, "spillway: could not remove spill files: " + e.getMessage());
        }
        if (trace != null)
        {
            try
            {
                trace.write(config.traceFile());
            }
            catch (final IOException e)
            {
                LOG.log(WARNING, "spillway: could not write trace " + config.traceFile() + ": " +
                    e.getMessage());
            }
        }
    }

    void traceTask(final int row, final TaskRecord t, final long start, final long end)
    {
        if (trace != null)
        {
            trace.record(row, t.name, "task", start, end);
        }
    }

    /** IO thread: a checkpoint generation from its cut to its commit or abandonment. */
    void traceCheckpoint(final String name, final long start, final long end)
    {
        if (trace != null)
        {
            trace.checkpoint(name, start, end);
        }
    }

    /** See {@code Spillway.tracePhase}. */
    public void tracePhase(final String name)
    {
        if (name == null || name.isBlank())
        {
            throw new IllegalArgumentException("a phase needs a name");
        }
        if (trace != null)
        {
            trace.phase(name);
        }
    }
}
