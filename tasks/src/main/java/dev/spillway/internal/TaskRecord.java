package dev.spillway.internal;

import dev.spillway.Privilege;
import dev.spillway.StallException;
import dev.spillway.TaskBody;
import dev.spillway.TaskFailedException;
import dev.spillway.TaskHandle;
import dev.spillway.memory.DataObject;
import dev.spillway.memory.FutureUse;
import dev.spillway.memory.ResidentObjects;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** One submitted task. Fields are owned by the IO thread unless marked otherwise. */
final class TaskRecord implements TaskHandle, FutureUse, ResidentObjects.Excluded
{
    private static final VarHandle STATUS;
    private static final VarHandle HAND_OVER;
    /** {@link #handOver}'s value once the worker took the successor. */
    private static final Object CLAIMED = new Object();

    static
    {
        try
        {
            STATUS = MethodHandles.lookup().findVarHandle(TaskRecord.class, "status", TaskStatus.class);
            HAND_OVER = MethodHandles.lookup().findVarHandle(TaskRecord.class, "handOver", Object.class);
        }
        catch (final ReflectiveOperationException e)
        {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Engine engine;
    final String name;
    final TaskBody body;
    final DataRef[] refs;
    final Privilege[] privileges;
    final int priority;
    final long seq;
    final int owner;

    int pendingDeps;
    int outstanding;
    boolean admitted;
    /** IO thread: entries of this task in the pending queue that admission's reuse pass already took out. */
    int staleQueueEntries;
    ArrayList<TaskRecord> successors;
    TaskRecord[] predecessors;
    long needBytes;
    /** Set before the task is queued: the worker, not the IO thread, records its outcome. */
    boolean completesOnWorker;
    /** For an internal task that saves its one object for a checkpoint: the generation; -1 for a user task. */
    long saveGeneration = -1;
    /** When the task was parked by a checkpoint, or 0. */
    long heldSince;
    /** Why a checkpoint holds this task back at admission, for wait reports; null when it does not. */
    volatile String heldBy;
    /** Submit side: the hash of the program up to and including this task (checkpoints only). */
    long prefixHash;
    TaskRecord livePrev;
    TaskRecord liveNext;
    /** IO thread (racy reads in wait reports): the task whose worker runs this one next ({@link HandOvers}). */
    TaskRecord handedOverBy;
    /** Admitted by a hand-over, on objects its predecessor held: it took no DRAM, so no admission window counts it. */
    boolean admittedByHandOver;

    private volatile TaskStatus status = TaskStatus.BLOCKED;
    /** Null, the successor handed to the worker that runs this task, or {@link #CLAIMED}. */
    private volatile Object handOver;
    private volatile boolean awaited;
    private volatile CompletableFuture<Void> future;
    private Throwable failure;
    private long startedNanos;
    private int worker = -1;

    TaskRecord(final Engine engine, final String name, final TaskBody body, final DataRef[] refs,
        final Privilege[] privileges, final int priority, final long seq, final int owner)
    {
        this.engine = engine;
        this.name = name;
        this.body = body;
        this.refs = refs;
        this.privileges = privileges;
        this.priority = priority;
        this.seq = seq;
        this.owner = owner;
    }

    TaskStatus status()
    {
        return status;
    }

    /** Sets the status with a release store; {@link #finish} uses a full one, for its waiters. */
    void status(final TaskStatus next)
    {
        STATUS.setRelease(this, next);
    }

    boolean casStatus(final TaskStatus expected, final TaskStatus next)
    {
        return STATUS.compareAndSet(this, expected, next);
    }

    /** IO thread: the successor handed over and not yet claimed, or null. */
    TaskRecord handedOverTask()
    {
        return handOver instanceof TaskRecord s ? s : null;
    }

    /** IO thread: whether nothing was handed over to this task's worker. */
    boolean nothingHandedOver()
    {
        return handOver == null;
    }

    /** IO thread: hands {@code next}, admitted and ready, to the worker that runs this task, to run when it ends. */
    void handOver(final TaskRecord next)
    {
        HAND_OVER.setRelease(this, next);
    }

    /** Worker, after this task's body returned normally: the successor handed over, now the worker's, or null. */
    TaskRecord claimHandOver()
    {
        final Object next = handOver;
        return next instanceof TaskRecord s && HAND_OVER.compareAndSet(this, s, CLAIMED) ? s : null;
    }

    /** IO thread: takes back {@code next} if the worker did not claim it; whoever wins the race routes it. */
    boolean takeBack(final TaskRecord next)
    {
        return HAND_OVER.compareAndSet(this, next, null);
    }

    /** Worker, before claiming the task: for {@link #waitReason()} only, published by the claim. */
    void running(final int workerIndex, final long nowNanos)
    {
        worker = workerIndex;
        startedNanos = nowNanos;
    }

    /** IO thread: records the outcome and wakes waiters. */
    void finish(final TaskStatus outcome, final Throwable cause)
    {
        failure = cause;
        status = outcome;
        predecessors = null;
        if (outcome != TaskStatus.DONE)
        {
            engine.failures.record(this);
        }
        if (awaited)
        {
            synchronized (this)
            {
                notifyAll();
            }
        }
        final CompletableFuture<Void> f = future;
        if (f != null)
        {
            complete(f);
        }
    }

    private void complete(final CompletableFuture<Void> f)
    {
        final Throwable cause = failure;
        if (cause == null)
        {
            f.complete(null);
        }
        else
        {
            f.completeExceptionally(rethrowable(cause));
        }
    }

    /**
     * @return an exception for the caller that names the task, with what the body threw as its direct cause: the
     *         engine's stored failure is not wrapped a second time.
     */
    static TaskFailedException rethrowable(final Throwable failure)
    {
        return new TaskFailedException(failure.getMessage(),
            failure instanceof TaskFailedException ? failure.getCause() : failure);
    }

    /** @return whether this is a checkpoint save task (see {@link Checkpointer}). */
    boolean saveTask()
    {
        return saveGeneration >= 0;
    }

    Throwable failure()
    {
        return failure;
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public long seq()
    {
        return seq;
    }

    @Override
    public boolean admitted()
    {
        return admitted;
    }

    @Override
    public int priority()
    {
        return priority;
    }

    @Override
    public boolean test(final DataObject o)
    {
        for (final DataRef r : refs)
        {
            if (r.object == o)
            {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean isDone()
    {
        return status.terminal();
    }

    @Override
    public CompletableFuture<Void> toCompletableFuture()
    {
        CompletableFuture<Void> f = future;
        if (f == null)
        {
            synchronized (this)
            {
                f = future;
                if (f == null)
                {
                    f = new CompletableFuture<>();
                    future = f;
                }
            }
        }
        if (isDone())
        {
            complete(f);
        }
        return f.copy();
    }

    @Override
    public void join()
    {
        await(Long.MAX_VALUE);
        rethrow();
    }

    @Override
    public void join(final Duration timeout)
    {
        if (!await(timeout.toNanos()))
        {
            throw new StallException("task '" + name + "' (#" + seq + ") not done after " + timeout + ": " +
                waitReason());
        }
        rethrow();
    }

    private boolean await(final long nanos)
    {
        if (isDone())
        {
            return true;
        }
        engine.refuseWaitInsideTask("join() on task '" + name + "' (#" + seq + ")");
        awaited = true;
        final long deadline = nanos == Long.MAX_VALUE ? Long.MAX_VALUE : System.nanoTime() + nanos;
        synchronized (this)
        {
            while (!isDone())
            {
                engine.checkFatal();
                final long left = deadline == Long.MAX_VALUE ? 1000 : deadline - System.nanoTime();
                if (left <= 0)
                {
                    return false;
                }
                try
                {
                    wait(deadline == Long.MAX_VALUE ? 1000 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                    throw new TaskFailedException("interrupted while waiting for task '" + name + "'", e);
                }
            }
        }
        return true;
    }

    private void rethrow()
    {
        final Throwable f = failure;
        if (f != null)
        {
            throw rethrowable(f);
        }
    }

    @Override
    public String waitReason()
    {
        return engine.describe(this);
    }

    int worker()
    {
        return worker;
    }

    long startedNanos()
    {
        return startedNanos;
    }

    @Override
    public String toString()
    {
        return "'" + name + "' (#" + seq + ")";
    }
}
