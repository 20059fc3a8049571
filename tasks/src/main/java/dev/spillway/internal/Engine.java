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
import dev.spillway.SpillwayException;
import dev.spillway.SpillwayStats;
import dev.spillway.StallException;
import dev.spillway.TaskBody;
import dev.spillway.TaskBuilder;
import dev.spillway.TaskFailedException;
import dev.spillway.TaskHandle;
import dev.spillway.WorkingSetTooLargeException;
import dev.spillway.checkpoint.CheckpointReport;
import dev.spillway.checkpoint.CheckpointStore;
import dev.spillway.checkpoint.RestorePoint;
import dev.spillway.io.Store;
import dev.spillway.io.StoreSettings;
import dev.spillway.io.Stores;
import dev.spillway.memory.BufferPool;
import dev.spillway.memory.DramBudget;
import dev.spillway.memory.Residency;
import dev.spillway.memory.ResidentObjects;
import dev.spillway.memory.TileBuffer;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.AgentRunner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The runtime behind {@link dev.spillway.Spillway}; internal API. It opens the store, builds the budget and the
 * pool, starts the IO thread ({@link IoAgent}) and the workers, and serves callers: declaring data, submitting,
 * waiting, reporting and closing. Submissions and completions reach the IO thread through a Disruptor
 * multi-producer ring; tasks without data skip it.
 */
public final class Engine
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
    private static final long PROGRAM_HASH_SEED = 0xcbf29ce484222325L;

    final Counters counters = new Counters();
    final FailureLog failures = new FailureLog();

    private final SpillwayConfig config;
    private final Store store;
    private final DramBudget budget;
    private final BufferPool pool;
    private final long stagingBytes;
    /** Under the submit lock: bytes of declared pinned objects, and the largest unpinned working set submitted. */
    private long pinnedBytes;
    private long largestWorkingSet;
    private final RingBuffer<EngineEvent> ring;
    private final ReadyQueues ready;
    private final Worker[] workers;
    private final IoAgent agent;
    private final WakeableIdleStrategy ioIdle;
    private final AgentRunner ioRunner;
    private final AgentRunner[] workerRunners;
    private final Trace trace;
    private final ConcurrentHashMap<String, DataRef> objects = new ConcurrentHashMap<>();
    private final LiveTasks live = new LiveTasks();
    private final Object submitLock = new Object();
    private final Object quiesce = new Object();
    private final Object closeLock = new Object();
    private final AtomicLong submitted = new AtomicLong();
    private final Checkpointer checkpointer;
    /** Restart: tasks below this sequence are skipped, their outputs restored; and the program's expected hash. */
    private final RestorePoint restored;
    private final long restoredFrontier;
    /** Under the submit lock: hash of the tasks submitted so far. */
    private long programHash = PROGRAM_HASH_SEED;

    private long nextSeq;
    private volatile boolean submitPaused;
    private boolean closed;
    private final AtomicInteger quiesceWaiters = new AtomicInteger();
    private volatile Throwable fatal;
    private CloseReport closeReport;

    /** Opens the store, allocates the ring and starts the IO thread and the workers. */
    public Engine(final SpillwayConfig config)
    {
        this.config = config;
        final long restoreStart = System.nanoTime();
        restored = restore(config.checkpointStore());
        final double restoreSeconds = (System.nanoTime() - restoreStart) / 1e9;
        restoredFrontier = restored == null ? 0 : restored.cut().frontier();
        try
        {
            final Store spill = Stores.open(config.storeKind(), new StoreSettings(config.storeDir(), config.diskCap(),
                config.storeAverageBlock(), config.storeMaxBlocks()));
            store = restored == null ? spill : new RestoringStore(spill, restored);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot open the " + config.storeKind() + " store in " +
                config.storeDir() + ": " + e.getMessage(), e);
        }
        budget = new DramBudget(config.dramBudget());
        stagingBytes = store.stagingBytes();
        budget.chargeStaging(stagingBytes);
        pool = new BufferPool(budget, Math.max(PAGE, store.alignment()));
        if (config.poisonReleasedBuffers())
        {
            pool.poison(this::bufferMisused);
        }
        ring = RingBuffer.createMultiProducer(EngineEvent::new, config.ringSize(), new YieldingWaitStrategy());
        final EventPoller<EngineEvent> poller = ring.newPoller();
        ring.addGatingSequences(poller.getSequence());

        final int n = config.workers();
        ready = new ReadyQueues(n, config.sharedReadyQueue(), config.idleMaxParkNanos());
        workers = new Worker[n];
        workerRunners = new AgentRunner[n];
        final String[] rows = new String[n + 1];
        rows[0] = "IO thread";
        for (int i = 0; i < n; i++)
        {
            workers[i] = new Worker(this, i, ready.queueOf(i), ready.idleOf(i), config.pinWorkers());
            rows[i + 1] = "worker " + i;
        }
        trace = config.traceFile() == null ? null : new Trace(rows);

        agent = new IoAgent(this, poller, ready, live, counters);
        final ResidentObjects resident = new ResidentObjects(config.cleanFirstEviction());
        final Transfers transfers = new Transfers(agent, store, pool, resident, counters, trace);
        final Admission admission = new Admission(agent, transfers, pool, resident, counters, config);
        checkpointer = config.checkpointStore() == null ? null : new Checkpointer(this, config.checkpointStore(),
            config.checkpointPolicy(), config.checkpointMode(), config.checkpointIoShare(), pool, objects.values(),
            restored, restoreSeconds);
        if (checkpointer != null)
        {
            checkpointer.wire(agent, admission, live);
            admission.checkpointer(checkpointer);
        }
        agent.wire(admission, transfers, checkpointer);

        ioIdle = new WakeableIdleStrategy(() -> ring.getCursor() > poller.getSequence().get(),
            config.idleMaxParkNanos());
        ioRunner = new AgentRunner(ioIdle, this::onAgentError, null, agent);
        AgentRunner.startOnThread(ioRunner, daemon());
        for (int i = 0; i < n; i++)
        {
            workerRunners[i] = new AgentRunner(ready.idleOf(i), this::onAgentError, null, workers[i]);
            AgentRunner.startOnThread(workerRunners[i], daemon());
        }
    }

    /** Finds the generation to resume from, if checkpoints are on; reports rejected generations on stderr. */
    private static RestorePoint restore(final CheckpointStore checkpoints)
    {
        if (checkpoints == null)
        {
            return null;
        }
        try
        {
            final RestorePoint point = checkpoints.restore(line -> System.err.println("spillway: " + line));
            if (point != null)
            {
                System.err.println("spillway: resuming from checkpoint generation " + point.cut().generation() +
                    ": tasks before #" + point.cut().frontier() + " are restored, not run");
            }
            return point;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot read the checkpoint directory: " + e.getMessage(), e);
        }
    }

    private static ThreadFactory daemon()
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
        if (fatal != null)
        {
            return;
        }
        fatal = e;
        System.err.println("spillway: internal error, the runtime cannot continue: " + e);
        e.printStackTrace();
    }

    private void bufferMisused(final String what)
    {
        if (fatal == null)
        {
            fatal = new IllegalStateException(what);
            System.err.println("spillway: " + what);
        }
    }

    /** Declares a data object. */
    public Data data(final String tag, final int size)
    {
        return declare(tag, size, false);
    }

    /** Declares a data object that stays in DRAM once written. */
    public Data pinnedData(final String tag, final int size)
    {
        return declare(tag, size, true);
    }

    private Data declare(final String tag, final int size, final boolean pinned)
    {
        if (tag == null)
        {
            throw new NullPointerException("data tag is null");
        }
        if (size <= 0)
        {
            throw new IllegalArgumentException("data '" + tag + "': size must be positive, got " + size);
        }
        final int largest = pool.largestSize();
        if (size > largest)
        {
            throw new IllegalArgumentException("data '" + tag + "': " + size + " B is more than the largest object " +
                "a runtime holds, " + largest + " B (2 GiB less one " + (Integer.MAX_VALUE - largest + 1) +
                "-B block): split it into tiles");
        }
        checkFatal();
        final DataRef ref = new DataRef(this, tag, size, pinned);
        synchronized (submitLock)
        {
            if (closed)
            {
                throw new IllegalStateException("data '" + tag + "' declared after close()");
            }
            if (objects.putIfAbsent(tag, ref) != null)
            {
                throw new IllegalArgumentException("data tag '" + tag + "' is already declared in this runtime");
            }
            if (restored != null && restored.blocks().containsKey(tag))
            {
                restoreDeclared(ref);
            }
            if (pinned)
            {
                final long cost = pool.cost(size);
                if (pinnedBytes + cost + largestWorkingSet > budget.capacity() - stagingBytes)
                {
                    objects.remove(tag);
                    throw new WorkingSetTooLargeException("pinned data '" + tag + "' (" + cost + " B) would leave " +
                        (budget.capacity() - stagingBytes - pinnedBytes - cost) + " B of the DRAM budget, less than " +
                        "the largest task submitted so far needs (" + largestWorkingSet + " B); " + pinnedBytes +
                        " B are pinned already");
                }
                pinnedBytes += cost;
            }
        }
        return ref;
    }

    /** A declared object whose contents are in the restored generation: it starts out in the store. */
    private void restoreDeclared(final DataRef ref)
    {
        final int length = restored.blocks().get(ref.tag()).length();
        if (length != ref.size())
        {
            objects.remove(ref.tag());
            throw new IllegalArgumentException("data '" + ref.tag() + "' is declared with " + ref.size() +
                " bytes, but checkpoint generation " + restored.cut().generation() + " holds " + length +
                " bytes for it: the program differs from the one checkpointed");
        }
        ref.hasContents = true;
        ref.ioHasContents = true;
        ref.object.stored(true);
        ref.object.discardable(false);
        ref.object.residency(Residency.IN_NVM);
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
            submit(n, body, (DataRef[])data, privileges, priority));
    }

    /** Submits the discard of {@code data}: after every earlier task using it, its contents are dropped. */
    public TaskHandle discard(final Data data)
    {
        final DataRef ref = ownRef(data, "discard");
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
        final DataRef ref = ownRef(data, "acquire");
        refuseWaitInsideTask("acquire('" + ref.tag() + "')");
        final AcquiredView view = new AcquiredView(ref);
        final TaskHandle handle = task("acquire '" + ref.tag() + "'").read(ref).submit(view);
        final CompletableFuture<Void> done = handle.toCompletableFuture();
        while (!view.started())
        {
            checkFatal();
            try
            {
                done.get(10, TimeUnit.MILLISECONDS);
            }
            catch (final TimeoutException e)
            {
                continue;
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                view.close();
                throw new StallException("interrupted while acquiring '" + ref.tag() + "'");
            }
            catch (final ExecutionException e)
            {
                throw (TaskFailedException)e.getCause();
            }
        }
        return view;
    }

    private DataRef ownRef(final Data data, final String what)
    {
        if (data == null)
        {
            throw new NullPointerException(what + ": data is null");
        }
        if (!(data instanceof DataRef ref) || ref.engine != this)
        {
            throw new IllegalArgumentException(what + ": '" + data.tag() + "' was not declared by this runtime");
        }
        return ref;
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
            workingSet += pool.cost(r.size());
        }
        checkFatal();
        synchronized (submitLock)
        {
            if (closed)
            {
                throw new IllegalStateException("task '" + name + "' submitted after close()");
            }
            long unpinned = workingSet;
            for (final DataRef r : refs)
            {
                unpinned -= r.object.pinned() ? pool.cost(r.size()) : 0;
            }
            final long room = budget.capacity() - stagingBytes - pinnedBytes;
            if (unpinned > room)
            {
                throw new WorkingSetTooLargeException("task '" + name + "' needs " + workingSet + " B of DRAM for " +
                    refs.length + " objects " + java.util.Arrays.toString(refs) + " (each charged its size rounded " +
                    "up to whole " + pool.alignment() + "-B blocks, see Spillway.dramCharge), but the DRAM budget " +
                    "leaves " + room + " B (" + budget.capacity() + " B minus " + stagingBytes +
                    " B of IO staging minus " + pinnedBytes + " B pinned): raise the budget to at least " +
                    (budget.capacity() + unpinned - room) + " B");
            }
            largestWorkingSet = Math.max(largestWorkingSet, unpinned);
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
            if (checkpointer != null)
            {
                programHash = hashTask(programHash, t);
                t.prefixHash = programHash;
                if (t.seq < restoredFrontier)
                {
                    return skipRestored(t);
                }
            }
            Counters.add(submitted, 1);
            if (refs.length == 0 && !submitPaused)
            {
                submitWithoutData(t);
            }
            else
            {
                publish(EngineEvent.Kind.SUBMIT, t, null);
            }
            return t;
        }
    }

    /** A task before the restored cut: its outputs come from the checkpoint, so it is done without running. */
    private TaskRecord skipRestored(final TaskRecord t)
    {
        if (t.seq == restoredFrontier - 1 && programHash != restored.cut().programHash())
        {
            throw new IllegalStateException("task '" + t.name + "' (#" + t.seq + ") ends a program that differs " +
                "from the one checkpointed in generation " + restored.cut().generation() + " (hash " +
                Long.toHexString(programHash) + ", checkpoint " + Long.toHexString(restored.cut().programHash()) +
                "): names, data or privileges of the tasks before the cut changed; use a fresh checkpoint directory");
        }
        t.finish(TaskStatus.DONE, null);
        return t;
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

    private static long mix(final long h, final int v)
    {
        return (h ^ v) * 0x100000001b3L;
    }

    /** IO thread: an internal task (a checkpoint save) joins the count awaited by {@link #awaitAll}. */
    void countInternal()
    {
        Counters.add(submitted, 1);
    }

    /**
     * A task without data has no dependencies and needs no DRAM: it goes straight to a ready queue and its worker
     * completes it, without a trip through the IO thread.
     */
    private void submitWithoutData(final TaskRecord t)
    {
        t.status(TaskStatus.READY);
        t.completesOnWorker = true;
        ready.offer(t);
    }

    /** Worker side of {@link #submitWithoutData}: records the outcome. */
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

    private long incomplete()
    {
        long done = agent.finished();
        for (final Worker w : workers)
        {
            done += w.completed.get() + w.failed.get();
        }
        return submitted.get() - done;
    }

    void quiesceCheck()
    {
        if (quiesceWaiters.get() > 0 && incomplete() == 0)
        {
            synchronized (quiesce)
            {
                quiesce.notifyAll();
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

    /**
     * Waits until every submitted task is done, then throws the failures not reported before, naming the first in
     * submission order; a null timeout waits indefinitely, reporting stalls.
     */
    public void awaitAll(final Duration timeout)
    {
        refuseWaitInsideTask("awaitAll()");
        quiesce(timeout);
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

    private void quiesce(final Duration timeout)
    {
        final long start = System.nanoTime();
        long nextReport = start + STALL_REPORT_NANOS;
        quiesceWaiters.incrementAndGet();
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
            quiesceWaiters.decrementAndGet();
        }
    }

    /** @return the internal error that stopped the runtime, or {@code null}. */
    Throwable fatal()
    {
        return fatal;
    }

    void checkFatal()
    {
        final Throwable f = fatal;
        if (f != null)
        {
            throw new SpillwayException("the runtime stopped and accepts no more calls: " + f, f);
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
            case GATED -> "waiting for " + ((AsyncTaskBody)t.body).gateReason();
            case PENDING -> agent.paused() ? "admission paused: call resume()" : "waiting for DRAM: needs " + t.needBytes + " B, " + Math.max(0, budget.available()) +
                " B free of " + budget.capacity() + " B (the rest held by running or admitted tasks); " +
                agent.pendingCount() + " task(s) in the " + config.ioOrder().letter() + " admission queue";
            case FETCHING -> "waiting for data: " + inFlight(t) + "; " + agent.transfersQueued() +
                " transfer(s) queued";
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
        return agent.awaitingData();
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
        return new SpillwayStats(store.name(), c.bytesRead, c.bytesWritten, c.reads, c.writes, c.writeFailures,
            c.hits, c.misses,
            c.cleanEvictions, c.dirtyEvictions, c.writeBehinds, c.prefetches, agent.transfersQueued(), completed,
            failed, budget.capacity(), budget.peakPhysical(), busy, idleNs, waiting,
            run.getValueAtPercentile(50), run.getValueAtPercentile(99), io.getValueAtPercentile(50),
            io.getValueAtPercentile(99));
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
            synchronized (submitLock)
            {
                if (closed)
                {
                    return closeReport;
                }
                closed = true;
            }
            return shutDown(mode);
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
            if (fatal == null)
            {
                quiesce(null);
            }
        }
        finally
        {
            for (final AgentRunner r : workerRunners)
            {
                stop(r);
            }
            stop(ioRunner);
            closeReport = report(mode, counters.cancelled - cancelledBefore);
            if (checkpointer != null)
            {
                checkpointer.close(mode == CloseMode.DRAIN && closeReport.failed() == 0 &&
                    closeReport.cancelled() == 0 && fatal == null);
            }
            releaseAll();
        }
        checkFatal();
        return closeReport;
    }

    /** Stops an idle agent thread at once: after 1 ms it is interrupted out of its park. */
    private static void stop(final AgentRunner runner)
    {
        runner.close(1, thread -> { });
    }

    private CloseReport report(final CloseMode mode, final long cancelled)
    {
        long completed = counters.completed;
        long failed = counters.failed;
        for (final Worker w : workers)
        {
            completed += w.completed.get();
            failed += w.failed.get();
        }
        return new CloseReport(mode, completed, failed, cancelled);
    }

    private void releaseAll()
    {
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
}
