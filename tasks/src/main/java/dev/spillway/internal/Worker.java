package dev.spillway.internal;

import dev.spillway.Privilege;
import dev.spillway.io.BitFlips;
import dev.spillway.io.CrashPoints;
import dev.spillway.spi.AsyncTaskBody;
import net.openhft.affinity.AffinityLock;
import org.HdrHistogram.SingleWriterRecorder;
import org.agrona.concurrent.Agent;
import org.jctools.queues.MessagePassingQueue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/** Runs task bodies taken from a ready queue. Never does IO: completion goes back to the IO thread. */
final class Worker implements Agent
{
    private static final ThreadLocal<Worker> CURRENT = new ThreadLocal<>();
    /** Hand-overs a worker takes in a row before it lets the next one queue behind what is ready. */
    static final int CLAIMS_IN_A_ROW = 64;

    private final Engine engine;
    private final int index;
    private final MessagePassingQueue<TaskRecord> queue;
    private final WakeableIdleStrategy idle;
    private final TaskContextImpl ctx = new TaskContextImpl();
    private final boolean pin;
    private AffinityLock lock;

    final SingleWriterRecorder runNanos = new SingleWriterRecorder(3);
    /** Single-writer counters, published with release stores (no fence on the hot path). */
    final AtomicLong completed = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong busyNanos = new AtomicLong();
    final AtomicLong idleNanos = new AtomicLong();
    final AtomicLong waitingNanos = new AtomicLong();
    /** Successors claimed from the task before them ({@link HandOvers}). */
    final AtomicLong handOvers = new AtomicLong();
    private long idleSince;
    private boolean waitingForData;
    private boolean finishedSinceIdle;
    /** The task whose body runs on this worker now, or null; read by its own thread only. */
    private TaskRecord running;
    /** A successor claimed from the task that ran last, to run next ({@link HandOvers}), or null. */
    private TaskRecord next;
    /** Successors claimed in a row; past {@link #CLAIMS_IN_A_ROW} the next goes through the ready queue. */
    private int claimed;

    Worker(final Engine engine, final int index, final MessagePassingQueue<TaskRecord> queue,
        final WakeableIdleStrategy idle, final boolean pin)
    {
        this.engine = engine;
        this.index = index;
        this.queue = queue;
        this.idle = idle;
        this.pin = pin;
    }

    /** @return the task of {@code engine} whose body runs on the calling thread, or null. */
    static TaskRecord runningOnThisThread(final Engine engine)
    {
        final Worker w = CURRENT.get();
        return w == null || w.engine != engine ? null : w.running;
    }

    @Override
    public void onStart()
    {
        CURRENT.set(this);
        if (pin)
        {
            lock = AffinityLock.acquireLock();
        }
        idleSince = System.nanoTime();
    }

    @Override
    public int doWork()
    {
        final TaskRecord t = next != null ? next : queue.relaxedPoll();
        claimed = next != null ? claimed : 0;
        next = null;
        if (t == null)
        {
            if (finishedSinceIdle)
            {
                finishedSinceIdle = false;
                engine.quiesceCheck();
            }
            if (!waitingForData && engine.tasksAwaitingData() > 0)
            {
                endIdle(System.nanoTime());
                waitingForData = true;
            }
            return 0;
        }
        idle.reset();
        final long start = System.nanoTime();
        t.running(index, start);
        if (!t.casStatus(TaskStatus.READY, TaskStatus.RUNNING))
        {
            return 1;
        }
        endIdle(start);
        ctx.bind(t);
        Throwable error = null;
        final TaskRunEvent event = JfrTypes.TASK_RUN.isEnabled() ? new TaskRunEvent() : null;
        if (event != null)
        {
            event.begin();
        }
        running = t;
        try
        {
            CrashPoints.hit(CrashPoints.IN_TASK);
            if (t.body instanceof AsyncTaskBody async)
            {
                // Its own context: the work it started may touch its buffers after this worker took other tasks.
                final TaskContextImpl own = new TaskContextImpl();
                own.bind(t);
                final CompletableFuture<?> done = async.start(own);
                endRun(t, start, event);
                done.whenComplete((ignored, failure) -> engine.publish(EngineEvent.Kind.DONE, t,
                    Completions.cause(failure)));
                return 1;
            }
            t.body.run(ctx);
            if (BitFlips.armed())
            {
                flipAWrittenBit(t);
            }
        }
        catch (final Throwable e)
        {
            error = e;
        }
        finally
        {
            running = null;
        }
        endRun(t, start, event);
        if (t.completesOnWorker)
        {
            engine.finishOnWorker(t, error, this);
            finishedSinceIdle = true;
        }
        else
        {
            next = error == null && claimed < CLAIMS_IN_A_ROW ? t.claimHandOver() : null;
            if (next != null)
            {
                claimed++;
                Counters.add(handOvers, 1);
            }
            engine.publish(EngineEvent.Kind.DONE, t, error);
        }
        return 1;
    }

    /** Fault injection ({@link BitFlips}): offers the first object the task wrote. */
    private void flipAWrittenBit(final TaskRecord t)
    {
        for (int i = 0; i < t.refs.length; i++)
        {
            if (t.privileges[i] == Privilege.WRITE || t.privileges[i] == Privilege.READ_WRITE)
            {
                BitFlips.wrote(t.name, t.refs[i].tag(), ctx.buffer(t.refs[i]));
                return;
            }
        }
    }

    private void endRun(final TaskRecord t, final long start, final TaskRunEvent event)
    {
        final long end = System.nanoTime();
        if (event != null)
        {
            event.task = t.name;
            event.seq = t.seq;
            event.worker = index;
            event.commit();
        }
        Counters.add(busyNanos, end - start);
        runNanos.recordValue(end - start);
        engine.traceTask(index + 1, t, start, end);
        idleSince = end;
        waitingForData = false;
    }

    private void endIdle(final long now)
    {
        Counters.add(waitingForData ? waitingNanos : idleNanos, now - idleSince);
        idleSince = now;
        waitingForData = false;
    }

    @Override
    public void onClose()
    {
        if (lock != null)
        {
            lock.release();
        }
    }

    @Override
    public String roleName()
    {
        return "spillway-worker-" + index;
    }
}
