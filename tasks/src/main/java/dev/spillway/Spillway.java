package dev.spillway;

import dev.spillway.checkpoint.CheckpointReport;
import dev.spillway.internal.Engine;

import java.time.Duration;

import static java.lang.System.Logger.Level.WARNING;

/**
 * An out-of-core task runtime. Declare data objects, submit tasks with a privilege per object, and the runtime
 * infers dependencies from submission order, keeps data within the DRAM budget, spills the rest to the NVMe tier
 * through one IO thread, and runs tasks on workers once their data is resident.
 *
 * <pre>{@code
 * try (Spillway sw = Spillway.builder().workers(2).dramBudget(64L << 20).build())
 * {
 *     Data a = sw.data("a", 8 << 20);
 *     sw.task("fill a").write(a).submit(ctx -> fill(ctx.buffer(a)));
 *     sw.task("sum a").read(a).submit(ctx -> sum(ctx.buffer(a))).join();
 * }
 * }</pre>
 *
 * <p>All methods are thread-safe. Submission order across threads is the order in which {@code submit} calls
 * return.
 */
public final class Spillway implements TaskRuntime
{
    private static final System.Logger LOG = System.getLogger(Spillway.class.getName());

    private final Engine engine;

    Spillway(final SpillwayConfig config)
    {
        engine = new Engine(config);
    }

    /** @return a configuration to adjust, then {@link SpillwayConfig#build()}. */
    public static SpillwayConfig builder()
    {
        return new SpillwayConfig();
    }

    /**
     * Declares a data object. Its first task must write it: {@link Privilege#READ} and {@link Privilege#READ_WRITE}
     * are refused with {@link DataNotWrittenException} until a task with {@link Privilege#WRITE} was submitted.
     *
     * @param tag  a stable name, unique within this runtime.
     * @param size bytes.
     */
    public Data data(final String tag, final int size)
    {
        return engine.data(tag, size);
    }

    /**
     * Declares a pinned data object: once written it stays in DRAM until the runtime closes, like the ghost layers of a
     * stencil. Its bytes count against the budget for the whole run; the runtime refuses a pin that leaves no room
     * for the largest task submitted so far.
     *
     * @param tag  a stable name, unique within this runtime.
     * @param size bytes.
     */
    public Data pinnedData(final String tag, final int size)
    {
        return engine.pinnedData(tag, size);
    }

    /**
     * @param bytes an object size, as passed to {@link #data}.
     * @return what an object of that size is charged against the DRAM budget while resident: its size rounded up to
     *         the store's block size (at least a page), plus alignment slack where the OS cannot give aligned pages.
     *         A task fits only if the charges of its unpinned objects add up to at most the budget less pinned data.
     */
    public long dramCharge(final int bytes)
    {
        return engine.dramCharge(bytes);
    }

    /** @return 0: one runtime is one rank. */
    @Override
    public int rank()
    {
        return 0;
    }

    /** @return 1. */
    @Override
    public int ranks()
    {
        return 1;
    }

    /** {@link #data(String, int)}, for programs written against {@link TaskRuntime}; {@code owner} must be 0. */
    @Override
    public Data data(final String tag, final int size, final int owner)
    {
        checkOwner(tag, owner);
        return data(tag, size);
    }

    /** {@link #pinnedData(String, int)}, for programs written against {@link TaskRuntime}; {@code owner} must be 0. */
    @Override
    public Data pinnedData(final String tag, final int size, final int owner)
    {
        checkOwner(tag, owner);
        return pinnedData(tag, size);
    }

    private static void checkOwner(final String tag, final int owner)
    {
        if (owner != 0)
        {
            throw new IllegalArgumentException("data '" + tag + "': owner rank " + owner + " on a single runtime, " +
                "whose only rank is 0");
        }
    }

    /** @return this runtime. */
    @Override
    public Spillway local()
    {
        return this;
    }

    /** @return the object declared with {@code tag}, or {@code null}. */
    public Data lookup(final String tag)
    {
        return engine.lookup(tag);
    }

    /** Starts declaring a task named {@code name}; finish with {@link TaskBuilder#submit}. */
    @Override
    public TaskBuilder task(final String name)
    {
        return engine.task(name);
    }

    /**
     * Holds admission: tasks submitted from now on are tracked but none is admitted to DRAM until {@link #resume()}.
     * Lets a caller stage a graph so the IO policy sees all of it at once.
     */
    public void pause()
    {
        engine.pause();
    }

    /** Ends a {@link #pause()}. */
    public void resume()
    {
        engine.resume();
    }

    /**
     * Marks {@code data} dead: once every task submitted before this call is done with it, its contents are dropped
     * from DRAM and the NVMe tier and never written back. Its tag stays declared: a later task may WRITE it afresh,
     * and reading it before that is refused with {@link DataNotWrittenException}. Like StarPU's
     * {@code starpu_data_invalidate} or Spark's {@code unpersist}.
     *
     * @return the discard, a task named {@code discard 'tag'}.
     * @throws IllegalArgumentException if {@code data} is pinned or belongs to another runtime.
     */
    public TaskHandle discard(final Data data)
    {
        return engine.discard(data);
    }

    /**
     * Waits until every task submitted before this call that writes {@code data} is done and its contents are in
     * DRAM, then holds them there for the caller to read, without a copy task: the object counts against the DRAM
     * budget, and tasks submitted later that write it wait, until {@link Acquired#close()}. Like StarPU's
     * {@code starpu_data_acquire} in read mode.
     *
     * @throws TaskFailedException   if the task that was to produce the contents failed.
     * @throws IllegalStateException if called from inside a task body of this runtime.
     */
    public Acquired acquire(final Data data)
    {
        return engine.acquire(data);
    }

    /**
     * Waits for every submitted task. Every 10 s without progress it prints what tasks wait for to stderr.
     *
     * @throws TaskFailedException   if any task failed or was cancelled since the last {@code awaitAll}: it names the
     *                               first such task in submission order, counts the others, and has what that task's
     *                               body threw as its cause. Every other task still ran to its end first.
     * @throws IllegalStateException if called from inside a task body of this runtime.
     */
    @Override
    public void awaitAll()
    {
        engine.awaitAll(null);
    }

    /**
     * Waits at most {@code timeout} for every submitted task, then reports failures as {@link #awaitAll()} does.
     *
     * @throws StallException on timeout, listing what unfinished tasks wait for.
     */
    public void awaitAll(final Duration timeout)
    {
        if (timeout == null)
        {
            throw new NullPointerException("timeout is null; awaitAll() waits without one");
        }
        engine.awaitAll(timeout);
    }

    /** @return one line per unfinished task (at most {@code limit}) saying what it waits for. */
    public String describeWaits(final int limit)
    {
        return engine.describeWaits(limit);
    }

    /** @return a snapshot of the runtime's counters. */
    public SpillwayStats stats()
    {
        return engine.stats();
    }

    /**
     * Marks the start of a phase of the caller's program (input generation, compute, verification) in the trace:
     * the phase lasts until the next one starts or the trace is written at close. Does nothing unless
     * {@link SpillwayConfig#traceFile} is set.
     *
     * @param name the phase's name, shown on the trace's "phases" row.
     * @throws IllegalArgumentException if {@code name} is null or blank.
     */
    public void tracePhase(final String name)
    {
        engine.tracePhase(name);
    }

    /**
     * Takes no checkpoint after this call (one in flight still commits). Call it before tasks whose effects reach
     * outside their data objects, such as verification or output: a restart skips every task before a cut, so a
     * cut among such tasks would lose their effects.
     */
    public void stopCheckpoints()
    {
        engine.stopCheckpoints();
    }

    /**
     * Cancels every task submitted so far that has not started; tasks running finish. The runtime stays open for
     * {@link #awaitAll()}, which reports the cancelled tasks, and {@link #close()}, but tasks submitted later are
     * cancelled too. A distributed runtime calls it when the job must restart, so a rank stops at once instead of
     * running on to its first missing transfer.
     */
    public void cancelAll()
    {
        engine.cancelAll();
    }

    /**
     * Takes a checkpoint between the tasks submitted so far and the next one: its generation holds the outputs of
     * every task submitted before this call and of none after it. Tasks submitted later wait at admission until the
     * cut begins, which is once the generation before it is done and the policy's
     * {@link dev.spillway.checkpoint.CheckpointPolicy#mayBegin} allows. A distributed runtime calls it on every rank
     * at the same global submission index, which makes the ranks' generations one consistent global checkpoint.
     * Ignored without checkpoints, and where the restored checkpoint already holds the cut (same or lower global
     * index, or for a local cut, all the tasks before it); a cut requested after the last task may not be taken
     * before {@link #close()}.
     *
     * @param globalIndex stored as the cut's {@link dev.spillway.checkpoint.Cut#globalIndex}; {@code Cut.LOCAL} for
     *                    a cut of this runtime alone.
     */
    public void checkpointHere(final long globalIndex)
    {
        engine.checkpointHere(globalIndex);
    }

    /**
     * Holds admission for a cut agreed behind the submission front: tasks go on being submitted, none is admitted to
     * DRAM until {@link #checkpointAt} or {@link #releaseAdmissionHold}. A distributed runtime holds it while the ranks
     * agree on a cut at their admission fronts.
     *
     * @return the admission front: the sequence number ({@link TaskHandle#seq()}) one past the latest task admitted,
     *         so no task at or after it has touched its data.
     */
    public long holdAdmission()
    {
        return engine.holdAdmission();
    }

    /**
     * As {@link #checkpointHere}, but before task {@code frontier}, which may be submitted already, then releases the
     * admission hold. Needs a checkpoint policy that allows it
     * ({@link dev.spillway.checkpoint.CheckpointPolicy#cutsBehindSubmission}) and admission held at or before
     * {@code frontier} ({@link #holdAdmission}), and it may not lie before an earlier cut.
     *
     * @param frontier    the sequence number of the first task after the cut.
     * @param globalIndex stored as the cut's {@link dev.spillway.checkpoint.Cut#globalIndex}.
     */
    public void checkpointAt(final long frontier, final long globalIndex)
    {
        engine.checkpointAt(frontier, globalIndex);
    }

    /** Ends a {@link #holdAdmission} without a cut. */
    public void releaseAdmissionHold()
    {
        engine.releaseAdmissionHold();
    }

    /** @return what checkpointing did in this run, and what a restart restored. */
    public CheckpointReport checkpointReport()
    {
        return engine.checkpointReport();
    }

    /** @return the settings in force. */
    public SpillwayConfig config()
    {
        return engine.config();
    }

    /**
     * Stops the runtime as {@code mode} says, then stops its threads, removes its spill files and frees its DRAM.
     * Later calls return the first report. Buffers that tasks kept past their run stay safe to touch but hold no
     * data (see {@link TaskContext#buffer}).
     *
     * @throws IllegalStateException if called from inside a task body of this runtime.
     * @throws SpillwayException     after cleaning up, if the runtime had stopped on an internal error.
     */
    public CloseReport close(final CloseMode mode)
    {
        return engine.close(mode);
    }

    /** Closes with the configured {@link CloseMode} (default {@link CloseMode#DRAIN}); see {@link #close(CloseMode)}. */
    @Override
    public void close()
    {
        final CloseReport report = engine.close(engine.config().closeMode());
        if (report.cancelled() > 0)
        {
            LOG.log(WARNING, "spillway: " + report);
        }
    }
}
