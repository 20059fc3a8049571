package dev.spillway.internal;

import com.lmax.disruptor.EventPoller;
import com.lmax.disruptor.EventTranslatorThreeArg;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.YieldingWaitStrategy;
import dev.spillway.CloseMode;
import dev.spillway.CloseReport;
import dev.spillway.Data;
import dev.spillway.DataNotWrittenException;
import dev.spillway.Privilege;
import dev.spillway.SpillwayConfig;
import dev.spillway.SpillwayStats;
import dev.spillway.StallException;
import dev.spillway.TaskBody;
import dev.spillway.TaskBuilder;
import dev.spillway.TaskFailedException;
import dev.spillway.TaskHandle;
import dev.spillway.WorkingSetTooLargeException;
import dev.spillway.io.Store;
import dev.spillway.io.StoreSettings;
import dev.spillway.io.Stores;
import dev.spillway.memory.BufferPool;
import dev.spillway.memory.DataObject;
import dev.spillway.memory.DramBudget;
import dev.spillway.memory.Residency;
import dev.spillway.memory.ResidentObjects;
import dev.spillway.memory.TileBuffer;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.jctools.queues.MessagePassingQueue;
import org.jctools.queues.MpmcUnboundedXaddArrayQueue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The runtime behind {@link dev.spillway.Spillway}; internal API. It is the IO thread's duty-cycle agent: it owns
 * dependency tracking, every data object's state, the DRAM budget, admission by IO policy (Algorithm 3 of seed 003)
 * and the transfers to and from the store. Workers only run bodies and report completion through the ring.
 */
public final class Engine implements Agent
{
    private static final EventTranslatorThreeArg<EngineEvent, EngineEvent.Kind, TaskRecord, Throwable> TRANSLATOR =
        (e, seq, kind, task, error) ->
        {
            e.kind = kind;
            e.task = task;
            e.error = error;
        };
    private static final long STALL_REPORT_NANOS = 10_000_000_000L;
    /** Tiles are page-aligned whatever the store needs, so DRAM accounting is the same for every store. */
    private static final int PAGE = 4096;
    private static final int READY_CHUNK = 4096;

    final Counters counters = new Counters();

    private final SpillwayConfig config;
    private final Store store;
    private final DramBudget budget;
    private final BufferPool pool;
    private final ResidentObjects resident;
    private final RingBuffer<EngineEvent> ring;
    private final EventPoller<EngineEvent> poller;
    private final EventPoller.Handler<EngineEvent> handler = this::onEvent;
    private final PendingQueue pending;
    private final ArrayDeque<DataObject> transfers = new ArrayDeque<>();
    private final ArrayDeque<TaskRecord> lookahead = new ArrayDeque<>();
    private final ArrayDeque<TaskRecord> depsMet = new ArrayDeque<>();
    private final ArrayList<TaskRecord> scratchPreds = new ArrayList<>();
    private final MessagePassingQueue<TaskRecord>[] readyQueues;
    private final Worker[] workers;
    private final AgentRunner ioRunner;
    private final AgentRunner[] workerRunners;
    private final Trace trace;
    private final long cleanReserveBytes;
    private final ConcurrentHashMap<String, DataRef> objects = new ConcurrentHashMap<>();
    private final LiveTasks live = new LiveTasks();
    private final Object submitLock = new Object();
    private final Object quiesce = new Object();
    private final WakeableIdleStrategy ioIdle;
    private final WakeableIdleStrategy[] workerIdle;

    private long nextSeq;
    private final AtomicLong submitted = new AtomicLong();
    private final AtomicLong finished = new AtomicLong();
    private volatile boolean submitPaused;
    private int wakeCursor;
    private boolean closed;
    private boolean paused;
    private boolean cancelling;
    private long tick;
    private int fetching;
    private volatile int awaitingData;
    private volatile int quiesceWaiters;
    private volatile Throwable fatal;
    private IOException lastSpillFailure;
    private CloseReport closeReport;

    /** Opens the store, allocates the ring and starts the IO thread and the workers. */
    @SuppressWarnings("unchecked")
    public Engine(final SpillwayConfig config)
    {
        this.config = config;
        try
        {
            store = Stores.open(config.storeKind(), new StoreSettings(config.storeDir(), config.diskCap(),
                config.storeAverageBlock(), config.storeMaxBlocks()));
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot open the " + config.storeKind() + " store in " +
                config.storeDir() + ": " + e.getMessage(), e);
        }
        budget = new DramBudget(config.dramBudget());
        budget.chargeStaging(store.stagingBytes());
        pool = new BufferPool(budget, Math.max(PAGE, store.alignment()));
        resident = new ResidentObjects(config.cleanFirstEviction());
        pending = PendingQueue.of(config.ioOrder());
        cleanReserveBytes = (long)(config.cleanReserve() * config.dramBudget());
        ring = RingBuffer.createMultiProducer(EngineEvent::new, config.ringSize(), new YieldingWaitStrategy());
        poller = ring.newPoller();
        ring.addGatingSequences(poller.getSequence());

        final int n = config.workers();
        readyQueues = new MessagePassingQueue[config.sharedReadyQueue() ? 1 : n];
        for (int i = 0; i < readyQueues.length; i++)
        {
            readyQueues[i] = new MpmcUnboundedXaddArrayQueue<>(READY_CHUNK);
        }
        workers = new Worker[n];
        workerRunners = new AgentRunner[n];
        final String[] rows = new String[n + 1];
        rows[0] = "IO thread";
        for (int i = 0; i < n; i++)
        {
            workers[i] = new Worker(this, i, readyQueues[config.sharedReadyQueue() ? 0 : i], config.pinWorkers());
            rows[i + 1] = "worker " + i;
        }
        trace = config.traceFile() == null ? null : new Trace(rows);
        ioIdle = new WakeableIdleStrategy(() -> ring.getCursor() > poller.getSequence().get(),
            config.idleMaxParkNanos());
        ioRunner = new AgentRunner(ioIdle, this::onAgentError, null, this);
        AgentRunner.startOnThread(ioRunner, daemon());
        workerIdle = new WakeableIdleStrategy[n];
        for (int i = 0; i < n; i++)
        {
            final MessagePassingQueue<TaskRecord> q = readyQueues[config.sharedReadyQueue() ? 0 : i];
            workerIdle[i] = new WakeableIdleStrategy(() -> !q.isEmpty(), config.idleMaxParkNanos());
            workerRunners[i] = new AgentRunner(workerIdle[i], this::onAgentError, null, workers[i]);
            AgentRunner.startOnThread(workerRunners[i], daemon());
        }
    }

    private static java.util.concurrent.ThreadFactory daemon()
    {
        return r ->
        {
            final Thread t = new Thread(r);
            t.setDaemon(true);
            return t;
        };
    }

    private void onAgentError(final Throwable e)
    {
        fatal = e;
        System.err.println("spillway: internal error, the runtime cannot continue: " + e);
        e.printStackTrace();
    }

    // ---------------------------------------------------------------- caller side

    /** Declares a data object. */
    public Data data(final String tag, final int size)
    {
        if (size <= 0)
        {
            throw new IllegalArgumentException("data '" + tag + "': size must be positive, got " + size);
        }
        final DataRef ref = new DataRef(this, tag, size);
        if (objects.putIfAbsent(tag, ref) != null)
        {
            throw new IllegalArgumentException("data tag '" + tag + "' is already declared in this runtime");
        }
        return ref;
    }

    /** @return the declared object of {@code tag}, or null. */
    public Data lookup(final String tag)
    {
        return objects.get(tag);
    }

    /** Starts a task declaration. */
    public TaskBuilder task(final String name)
    {
        return new TaskBuilderImpl(this, name);
    }

    TaskHandle submit(final String name, final TaskBody body, final DataRef[] refs, final Privilege[] privileges,
        final int priority)
    {
        long workingSet = 0;
        for (final DataRef r : refs)
        {
            if (r.engine != this)
            {
                throw new IllegalArgumentException("task '" + name + "': data '" + r.tag() +
                    "' belongs to another runtime");
            }
            workingSet += pool.roundUp(r.size());
        }
        final long room = budget.capacity() - store.stagingBytes();
        if (workingSet > room)
        {
            throw new WorkingSetTooLargeException("task '" + name + "' needs " + workingSet + " B of DRAM for " +
                refs.length + " objects " + java.util.Arrays.toString(refs) + ", but the DRAM budget leaves " + room +
                " B (" + budget.capacity() + " B minus " + store.stagingBytes() + " B of IO staging)");
        }
        synchronized (submitLock)
        {
            if (closed)
            {
                throw new IllegalStateException("task '" + name + "' submitted after close()");
            }
            for (int i = 0; i < refs.length; i++)
            {
                if (privileges[i].readsContents() && !refs[i].hasContents)
                {
                    throw new DataNotWrittenException("task '" + name + "' reads '" + refs[i].tag() +
                        "', which no earlier task wrote (or whose last use was SCRATCH)");
                }
            }
            for (int i = 0; i < refs.length; i++)
            {
                if (privileges[i] != Privilege.READ)
                {
                    refs[i].hasContents = privileges[i] != Privilege.SCRATCH;
                }
            }
            final TaskRecord t = new TaskRecord(this, name, body, refs, privileges, priority, nextSeq++,
                owner(refs, privileges));
            Worker.add(submitted, 1);
            if (refs.length == 0 && !submitPaused)
            {
                submitWithoutData(t);
                return t;
            }
            publish(EngineEvent.Kind.SUBMIT, t, null);
            return t;
        }
    }

    /**
     * A task without data has no dependencies and needs no DRAM: it goes straight to a ready queue and its worker
     * completes it, without a trip through the IO thread.
     */
    private void submitWithoutData(final TaskRecord t)
    {
        t.status(TaskStatus.READY);
        t.completesOnWorker = true;
        readyQueue(t).offer(t);
        wakeWorker(t);
    }

    /** Worker side of {@link #submitWithoutData}: records the outcome. */
    void finishOnWorker(final TaskRecord t, final Throwable error, final Worker w)
    {
        if (error == null)
        {
            Worker.add(w.completed, 1);
            t.finish(TaskStatus.DONE, null);
        }
        else
        {
            Worker.add(w.failed, 1);
            t.finish(TaskStatus.FAILED, new TaskFailedException("task '" + t.name + "' (#" + t.seq + ") failed: " +
                error, error));
        }
    }

    private long incomplete()
    {
        long done = finished.get();
        for (final Worker w : workers)
        {
            done += w.completed.get() + w.failed.get();
        }
        return submitted.get() - done;
    }

    void quiesceCheck()
    {
        if (quiesceWaiters > 0 && incomplete() == 0)
        {
            synchronized (quiesce)
            {
                quiesce.notifyAll();
            }
        }
    }

    private void wakeWorker(final TaskRecord t)
    {
        if (workerIdle.length == 1 || readyQueues.length > 1)
        {
            workerIdle[readyQueues.length > 1 ? t.owner : 0].wake();
            return;
        }
        for (final WakeableIdleStrategy w : workerIdle)
        {
            if (w.spinning())
            {
                return;
            }
        }
        for (int i = 0; i < workerIdle.length; i++)
        {
            final int k = (wakeCursor + i) % workerIdle.length;
            if (workerIdle[k].wake())
            {
                wakeCursor = k + 1;
                return;
            }
        }
    }

    private int owner(final DataRef[] refs, final Privilege[] privileges)
    {
        for (int i = 0; i < refs.length; i++)
        {
            if (privileges[i].producesContents())
            {
                return Math.floorMod(refs[i].tag().hashCode(), workers.length);
            }
        }
        return (int)(nextSeq % workers.length);
    }

    void publish(final EngineEvent.Kind kind, final TaskRecord task, final Throwable error)
    {
        ring.publishEvent(TRANSLATOR, kind, task, error);
        ioIdle.wake();
    }

    /** Holds admission: submissions are tracked but nothing new is admitted until {@link #resume()}. */
    public void pause()
    {
        synchronized (submitLock)
        {
            submitPaused = true;
            publish(EngineEvent.Kind.PAUSE, null, null);
        }
    }

    /** Ends a {@link #pause()}. */
    public void resume()
    {
        synchronized (submitLock)
        {
            submitPaused = false;
            publish(EngineEvent.Kind.RESUME, null, null);
        }
    }

    /** Waits until every submitted task is done; a null timeout waits indefinitely, reporting stalls. */
    public void awaitAll(final Duration timeout)
    {
        final long start = System.nanoTime();
        long nextReport = start + STALL_REPORT_NANOS;
        quiesceWaiters++;
        try
        {
            synchronized (quiesce)
            {
                while (incomplete() > 0)
                {
                    checkFatal();
                    final long now = System.nanoTime();
                    if (timeout != null && now - start >= timeout.toNanos())
                    {
                        throw new StallException(incomplete() + " task(s) not done after " + timeout + ":\n" +
                            describeWaits(10));
                    }
                    if (timeout == null && now >= nextReport)
                    {
                        System.err.println("spillway: still waiting for " + incomplete() + " task(s) after " +
                            (now - start) / 1_000_000_000 + " s:\n" + describeWaits(5));
                        nextReport = now + STALL_REPORT_NANOS;
                    }
                    quiesce.wait(10);
                }
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new StallException("interrupted while waiting for " + incomplete() + " task(s)");
        }
        finally
        {
            quiesceWaiters--;
        }
    }

    void checkFatal()
    {
        final Throwable f = fatal;
        if (f != null)
        {
            throw new TaskFailedException("the runtime failed internally: " + f, f);
        }
    }

    /** @return one line per unfinished task (at most {@code limit}) saying what it waits for. */
    public String describeWaits(final int limit)
    {
        final long withoutData = incomplete() - live.size();
        return live.describe(limit) + (withoutData > 0 ? "  " + withoutData +
            " task(s) without data: queued for or running on a worker\n" : "");
    }

    String describe(final TaskRecord t)
    {
        final TaskStatus s = t.status();
        return switch (s)
        {
            case BLOCKED -> "blocked on predecessor(s) " + unfinished(t.predecessors);
            case PENDING -> "waiting for DRAM: needs " + t.needBytes + " B, " + Math.max(0, budget.available()) +
                " B free of " + budget.capacity() + " B (the rest held by running or admitted tasks); " +
                pending.size() + " task(s) in the " + config.ioOrder().letter() + " admission queue";
            case FETCHING -> "waiting for data: " + inFlight(t) + "; " + transfers.size() + " transfer(s) queued";
            case READY -> "ready, waiting for a free worker (" + workers.length + " workers)";
            case RUNNING -> "running on worker " + t.worker() + " for " +
                (System.nanoTime() - t.startedNanos()) / 1_000_000 + " ms";
            case DONE -> "done";
            case FAILED, CANCELLED -> s.name().toLowerCase() + ": " + t.failure().getMessage();
        };
    }

    private static String unfinished(final TaskRecord[] preds)
    {
        if (preds == null)
        {
            return "(none left)";
        }
        final StringBuilder sb = new StringBuilder();
        for (final TaskRecord p : preds)
        {
            if (!p.isDone())
            {
                sb.append(sb.length() == 0 ? "" : ", ").append(p).append(' ').append(p.status());
            }
        }
        return sb.length() == 0 ? "(none left)" : sb.toString();
    }

    private static String inFlight(final TaskRecord t)
    {
        final StringBuilder sb = new StringBuilder();
        for (final DataRef r : t.refs)
        {
            final Residency res = r.object.residency();
            if (res != Residency.IN_MEM)
            {
                sb.append(sb.length() == 0 ? "" : ", ").append(r).append(' ').append(res);
            }
        }
        return sb.length() == 0 ? "all objects resident" : sb.toString();
    }

    int tasksAwaitingData()
    {
        return awaitingData;
    }

    /** @return a snapshot of the counters. */
    public SpillwayStats stats()
    {
        final int n = workers.length;
        final long[] busy = new long[n];
        final long[] idleNs = new long[n];
        final long[] waiting = new long[n];
        for (int i = 0; i < n; i++)
        {
            busy[i] = workers[i].busyNanos.get();
            idleNs[i] = workers[i].idleNanos.get();
            waiting[i] = workers[i].waitingNanos.get();
        }
        final Counters c = counters;
        long completed = c.completed;
        long failed = c.failed + c.cancelled;
        for (final Worker w : workers)
        {
            completed += w.completed.get();
            failed += w.failed.get();
        }
        final Histogram run = c.taskRunHistogram(workers);
        final Histogram io = c.ioHistogram();
        return new SpillwayStats(store.name(), c.bytesRead, c.bytesWritten, c.reads, c.writes, c.hits, c.misses,
            c.cleanEvictions, c.dirtyEvictions, c.writeBehinds, c.prefetches, transfers.size(), completed,
            failed, budget.capacity(), budget.peakPhysical(), busy, idleNs, waiting,
            run.getValueAtPercentile(50), run.getValueAtPercentile(99), io.getValueAtPercentile(50),
            io.getValueAtPercentile(99));
    }

    /** @return the configuration this runtime was opened with. */
    public SpillwayConfig config()
    {
        return config;
    }

    /** Drains or cancels, stops every thread, removes spill files and frees DRAM. Idempotent. */
    public CloseReport close(final CloseMode mode)
    {
        synchronized (submitLock)
        {
            if (closed)
            {
                return closeReport;
            }
            closed = true;
        }
        final long cancelledBefore = counters.cancelled;
        if (mode == CloseMode.CANCEL)
        {
            publish(EngineEvent.Kind.CANCEL_ALL, null, null);
        }
        try
        {
            awaitAll(null);
        }
        finally
        {
            for (final AgentRunner r : workerRunners)
            {
                r.close();
            }
            ioRunner.close();
            releaseAll();
        }
        long completed = counters.completed;
        long failed = counters.failed;
        for (final Worker w : workers)
        {
            completed += w.completed.get();
            failed += w.failed.get();
        }
        closeReport = new CloseReport(mode, completed, failed, counters.cancelled - cancelledBefore);
        return closeReport;
    }

    private void releaseAll()
    {
        for (final DataRef r : objects.values())
        {
            final TileBuffer b = r.object.buffer();
            if (b != null)
            {
                r.object.buffer(null);
                pool.release(b);
            }
        }
        pool.close();
        try
        {
            store.close();
        }
        catch (final IOException e)
        {
            System.err.println("spillway: could not remove spill files: " + e.getMessage());
        }
        if (trace != null)
        {
            try
            {
                trace.write(config.traceFile());
            }
            catch (final IOException e)
            {
                System.err.println("spillway: could not write trace " + config.traceFile() + ": " + e.getMessage());
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

    // ---------------------------------------------------------------- IO thread

    @Override
    public String roleName()
    {
        return "spillway-io";
    }

    @Override
    public int doWork() throws Exception
    {
        int work = poller.poll(handler) == EventPoller.PollState.PROCESSING ? 1 : 0;
        work += drainDepsMet();
        if (!paused)
        {
            work += admit();
        }
        work += transferOne();
        if (work == 0 && !paused)
        {
            work += prefetch();
            if (work == 0)
            {
                work += writeBehind();
            }
        }
        awaitingData = pending.size() + fetching;
        if (work > 0)
        {
            quiesceCheck();
        }
        return work;
    }

    private boolean onEvent(final EngineEvent e, final long sequence, final boolean endOfBatch)
    {
        final TaskRecord t = e.task;
        switch (e.kind)
        {
            case SUBMIT -> onSubmit(t);
            case DONE -> onDone(t, e.error);
            case PAUSE -> paused = true;
            case RESUME -> paused = false;
            case CANCEL_ALL -> cancelAll();
        }
        e.clear();
        return true;
    }

    private void onSubmit(final TaskRecord t)
    {
        live.add(t);
        final ArrayList<TaskRecord> preds = scratchPreds;
        for (int i = 0; i < t.refs.length; i++)
        {
            final DataRef r = t.refs[i];
            r.object.addFutureUse(t);
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
                    if (!reader.isDone() && reader != t)
                    {
                        edge(reader, t, preds);
                    }
                }
                r.readers.clear();
                r.lastWriter = t;
            }
        }
        if (t.refs.length > 0)
        {
            lookahead.addLast(t);
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
                    "' was to be produced by failed task '" + poisoned.poisonedBy.name + "'"));
            }
            else if (t.refs.length == 0)
            {
                makeReady(t);
            }
            else
            {
                t.status(TaskStatus.PENDING);
                pending.add(t);
            }
        }
        return n;
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

    private void makeReady(final TaskRecord t)
    {
        if (cancelling)
        {
            cancel(t);
            return;
        }
        t.status(TaskStatus.READY);
        readyQueue(t).offer(t);
        wakeWorker(t);
    }

    private MessagePassingQueue<TaskRecord> readyQueue(final TaskRecord t)
    {
        return readyQueues.length == 1 ? readyQueues[0] : readyQueues[t.owner];
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

    private void fail(final TaskRecord t, final TaskFailedException cause)
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

    private void finish(final TaskRecord t, final TaskStatus outcome, final Throwable cause)
    {
        t.finish(outcome, cause);
        live.remove(t);
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
        Worker.add(finished, 1);
    }

    private void cancelAll()
    {
        cancelling = true;
        final ArrayList<TaskRecord> drained = new ArrayList<>();
        pending.drainTo(drained);
        for (final TaskRecord t : drained)
        {
            cancel(t);
        }
        for (final MessagePassingQueue<TaskRecord> q : readyQueues)
        {
            TaskRecord t;
            while ((t = q.poll()) != null)
            {
                if (t.casStatus(TaskStatus.READY, TaskStatus.CANCELLED))
                {
                    cancel(t);
                }
            }
        }
    }

    // ---------------------------------------------------------------- admission (Algorithm 3)

    private int admit()
    {
        int n = 0;
        TaskRecord t;
        while ((t = pending.peek()) != null)
        {
            final long need = needBytes(t);
            t.needBytes = need;
            if (need > budget.available() && !makeRoom(t, need))
            {
                break;
            }
            pending.pop();
            admitOne(t);
            n++;
        }
        return n;
    }

    private long needBytes(final TaskRecord t)
    {
        long need = 0;
        for (final DataRef r : t.refs)
        {
            final DataObject o = r.object;
            final Residency res = o.residency();
            if (res == Residency.IN_NVM || res == Residency.UNMATERIALIZED ||
                (res == Residency.TO_NVM && !o.keepAfterWrite()))
            {
                need += pool.roundUp(o.size());
            }
        }
        return need;
    }

    private boolean makeRoom(final TaskRecord t, final long need)
    {
        if (budget.available() + resident.evictableBytes(t, pool) < need)
        {
            return false;
        }
        while (budget.available() < need)
        {
            evict(resident.chooseVictim(t));
        }
        return true;
    }

    private void evict(final DataObject v)
    {
        if (JfrTypes.EVICTION.isEnabled())
        {
            final EvictionEvent e = new EvictionEvent();
            e.tag = v.tag();
            e.dirty = v.dirty();
            e.nextUse = v.nextUse();
            e.commit();
        }
        if (v.dirty())
        {
            counters.dirtyEvictions++;
            v.residency(Residency.TO_NVM);
            v.keepAfterWrite(false);
            budget.startRelease(pool.roundUp(v.size()));
            transfers.addLast(v);
            return;
        }
        counters.cleanEvictions++;
        dropBuffer(v);
        if (v.discardable())
        {
            v.stored(false);
        }
        v.residency(v.stored() ? Residency.IN_NVM : Residency.UNMATERIALIZED);
        budget.uncommit(pool.roundUp(v.size()));
    }

    private void dropBuffer(final DataObject o)
    {
        resident.remove(o);
        pool.release(o.buffer());
        o.buffer(null);
    }

    private void admitOne(final TaskRecord t)
    {
        t.admitted = true;
        t.status(TaskStatus.FETCHING);
        fetching++;
        for (int i = 0; i < t.refs.length; i++)
        {
            final DataObject o = t.refs[i].object;
            o.retain();
            switch (o.residency())
            {
                case IN_MEM -> counters.hits++;
                case TO_MEM ->
                {
                    counters.hits++;
                    await(t, o);
                }
                case TO_NVM ->
                {
                    counters.hits++;
                    if (!o.keepAfterWrite())
                    {
                        o.keepAfterWrite(true);
                        budget.endRelease(pool.roundUp(o.size()), false);
                    }
                    await(t, o);
                }
                case IN_NVM, UNMATERIALIZED ->
                {
                    final boolean reads = t.privileges[i].readsContents() && o.stored();
                    if (reads)
                    {
                        counters.misses++;
                    }
                    startFetch(o, reads);
                    await(t, o);
                }
            }
        }
        if (t.outstanding == 0)
        {
            fetching--;
            makeReady(t);
        }
    }

    private static void await(final TaskRecord t, final DataObject o)
    {
        o.waiters().add(t);
        t.outstanding++;
    }

    private void startFetch(final DataObject o, final boolean reads)
    {
        budget.commit(pool.roundUp(o.size()));
        o.residency(Residency.TO_MEM);
        o.fetchReads(reads);
        transfers.addLast(o);
    }

    // ---------------------------------------------------------------- transfers

    private int transferOne()
    {
        final DataObject o = transfers.pollFirst();
        if (o == null)
        {
            return 0;
        }
        final long start = System.nanoTime();
        final String what;
        if (o.residency() == Residency.TO_MEM)
        {
            what = "fetch ";
            fetch(o);
        }
        else
        {
            what = o.keepAfterWrite() ? "write-behind " : "evict ";
            writeBack(o);
        }
        final long end = System.nanoTime();
        counters.ioNanos.recordValue(end - start);
        if (trace != null)
        {
            trace.record(0, what + o.tag(), "io", start, end);
        }
        return 1;
    }

    private void fetch(final DataObject o)
    {
        final TileBuffer b = pool.acquire(o.size());
        if (b == null)
        {
            if (budget.releasing() > 0)
            {
                transfers.addLast(o);
                return;
            }
            abortFetch(o, "no DRAM to bring '" + o.tag() + "' in, because an eviction could not be written" +
                (lastSpillFailure == null ? "" : ": " + lastSpillFailure.getMessage()), lastSpillFailure);
            return;
        }
        if (o.fetchReads())
        {
            final ByteBuffer dst = b.buffer().clear();
            final IoReadEvent event = JfrTypes.IO_READ.isEnabled() ? new IoReadEvent() : null;
            if (event != null)
            {
                event.begin();
            }
            try
            {
                store.read(o.tag(), dst);
            }
            catch (final IOException e)
            {
                pool.release(b);
                abortFetch(o, "cannot read '" + o.tag() + "' from the " + store.name() + " store: " + e.getMessage(),
                    e);
                return;
            }
            if (event != null)
            {
                event.tag = o.tag();
                event.bytes = o.size();
                event.commit();
            }
            counters.reads++;
            counters.bytesRead += o.size();
        }
        o.buffer(b);
        o.residency(Residency.IN_MEM);
        resident.add(o);
        wakeWaiters(o);
    }

    private void abortFetch(final DataObject o, final String message, final Throwable cause)
    {
        budget.uncommit(pool.roundUp(o.size()));
        o.residency(o.stored() ? Residency.IN_NVM : Residency.UNMATERIALIZED);
        final ArrayList<Object> waiting = new ArrayList<>(o.waiters());
        o.waiters().clear();
        for (final Object w : waiting)
        {
            final TaskRecord t = (TaskRecord)w;
            if (t.status() == TaskStatus.FETCHING)
            {
                fail(t, new TaskFailedException("task '" + t.name + "' could not get its data: " + message, cause));
            }
        }
    }

    private void writeBack(final DataObject o)
    {
        final boolean keep = o.keepAfterWrite();
        final ByteBuffer src = o.buffer().buffer().clear().limit(o.size());
        final IoWriteEvent event = JfrTypes.IO_WRITE.isEnabled() ? new IoWriteEvent() : null;
        if (event != null)
        {
            event.begin();
        }
        try
        {
            store.write(o.tag(), src, o.version());
        }
        catch (final IOException e)
        {
            lastSpillFailure = e;
            System.err.println("spillway: cannot write '" + o.tag() + "' to the " + store.name() + " store (" +
                e.getMessage() + "); it stays in DRAM");
            o.residency(Residency.IN_MEM);
            if (!keep)
            {
                budget.endRelease(pool.roundUp(o.size()), false);
            }
            o.keepAfterWrite(false);
            wakeWaiters(o);
            return;
        }
        finally
        {
            src.clear();
        }
        if (event != null)
        {
            event.tag = o.tag();
            event.bytes = o.size();
            event.writeBehind = keep;
            event.commit();
        }
        counters.writes++;
        counters.bytesWritten += o.size();
        o.stored(true);
        o.dirty(false);
        if (keep)
        {
            o.residency(Residency.IN_MEM);
            o.keepAfterWrite(false);
            wakeWaiters(o);
            return;
        }
        dropBuffer(o);
        o.residency(Residency.IN_NVM);
        budget.endRelease(pool.roundUp(o.size()), true);
    }

    private void wakeWaiters(final DataObject o)
    {
        final ArrayList<Object> waiting = o.waiters();
        for (int i = 0, n = waiting.size(); i < n; i++)
        {
            final TaskRecord t = (TaskRecord)waiting.get(i);
            if (t.status() == TaskStatus.FETCHING && --t.outstanding == 0)
            {
                fetching--;
                makeReady(t);
            }
        }
        waiting.clear();
    }

    // ---------------------------------------------------------------- look-ahead and write-behind

    private int prefetch()
    {
        if (config.prefetchDepth() == 0 || !transfers.isEmpty() || pending.size() > 0)
        {
            return 0;
        }
        TaskRecord head;
        while ((head = lookahead.peekFirst()) != null && (head.admitted || head.isDone()))
        {
            lookahead.pollFirst();
        }
        int seen = 0;
        for (final TaskRecord t : lookahead)
        {
            if (t.admitted || t.isDone())
            {
                continue;
            }
            if (++seen > config.prefetchDepth())
            {
                break;
            }
            for (int i = 0; i < t.refs.length; i++)
            {
                final DataObject o = t.refs[i].object;
                if (t.privileges[i].readsContents() && o.residency() == Residency.IN_NVM &&
                    pool.roundUp(o.size()) <= budget.available() - cleanReserveBytes)
                {
                    counters.prefetches++;
                    counters.misses++;
                    startFetch(o, true);
                    return 1;
                }
            }
        }
        return 0;
    }

    private int writeBehind()
    {
        if (cleanReserveBytes == 0 || !transfers.isEmpty() ||
            budget.available() + resident.cleanBytes() >= cleanReserveBytes)
        {
            return 0;
        }
        final DataObject v = resident.chooseWriteBehind();
        if (v == null)
        {
            return 0;
        }
        counters.writeBehinds++;
        v.residency(Residency.TO_NVM);
        v.keepAfterWrite(true);
        transfers.addLast(v);
        return 1;
    }
}
