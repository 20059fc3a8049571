package dev.spillway.internal;

import dev.spillway.Data;
import dev.spillway.Privilege;
import dev.spillway.TaskBody;
import dev.spillway.TaskHandle;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The intake of declarations and submissions. One lock orders them, so a task's sequence number is its submission
 * order, which dependency inference relies on. A task is checked ({@link SubmitChecks}), numbered, skipped if the
 * restored checkpoint holds its outputs ({@link Restart}), and routed: a task without data straight to a ready
 * queue, any other through the ring to the IO thread.
 */
final class Submissions
{
    private final Engine engine;
    private final Object lock = new Object();
    private final ConcurrentHashMap<String, DataRef> objects;
    private final SubmitChecks checks;
    private final Restart restart;
    private final boolean checkpointing;
    private final Quiescence quiescence;
    private final ReadyQueues ready;
    private final int workers;
    private final FatalError fatal;

    /** Under the lock. */
    private final LiveData liveData;
    private long nextSeq;
    /** With cuts behind the submission front: the program hash after each task a cut may still precede; else null. */
    private final PrefixHashes prefixes;
    private volatile boolean paused;
    private boolean closed;

    Submissions(final Engine engine, final ConcurrentHashMap<String, DataRef> objects, final SubmitChecks checks,
        final Restart restart, final boolean checkpointing, final boolean cutsBehind, final Quiescence quiescence,
        final ReadyQueues ready, final int workers, final FatalError fatal, final LiveData liveData)
    {
        this.prefixes = cutsBehind ? new PrefixHashes() : null;
        this.liveData = liveData;
        this.engine = engine;
        this.objects = objects;
        this.checks = checks;
        this.restart = restart;
        this.checkpointing = checkpointing;
        this.quiescence = quiescence;
        this.ready = ready;
        this.workers = workers;
        this.fatal = fatal;
    }

    /** Declares a data object; a pinned one stays in DRAM once written. */
    Data declare(final String tag, final int size, final boolean pinned)
    {
        checks.declaration(tag, size);
        fatal.check();
        final DataRef ref = new DataRef(engine, tag, size, pinned);
        synchronized (lock)
        {
            if (closed)
            {
                throw new IllegalStateException("data '" + tag + "' declared after close()");
            }
            if (objects.putIfAbsent(tag, ref) != null)
            {
                throw new IllegalArgumentException("data tag '" + tag + "' is already declared in this runtime");
            }
            try
            {
                if (restart.holds(tag))
                {
                    restart.restoreContents(ref);
                }
                if (pinned)
                {
                    checks.pin(tag, size);
                }
            }
            catch (final RuntimeException e)
            {
                objects.remove(tag);
                throw e;
            }
            liveData.declared(size);
        }
        return ref;
    }

    /** Submits a task: checks it, numbers it and routes it. */
    TaskHandle submit(final String name, final TaskBody body, final DataRef[] refs, final Privilege[] privileges,
        final int priority)
    {
        final long workingSet = checks.workingSet(name, refs);
        fatal.check();
        synchronized (lock)
        {
            if (closed)
            {
                throw new IllegalStateException("task '" + name + "' submitted after close()");
            }
            checks.submission(name, refs, privileges, workingSet);
            final TaskRecord t = new TaskRecord(engine, name, body, refs, privileges, priority, nextSeq++,
                owner(refs, privileges));
            final boolean skipped = checkpointing && restart.skips(t);
            if (prefixes != null)
            {
                prefixes.add(t.seq, t.prefixHash);
            }
            if (skipped)
            {
                return t;
            }
            quiescence.submitted();
            if (refs.length == 0 && !paused)
            {
                submitWithoutData(t);
            }
            else
            {
                engine.publish(EngineEvent.Kind.SUBMIT, t, null);
            }
            return t;
        }
    }

    /** Asks for a cut before the next task submitted; ignored without checkpoints or inside the restored prefix. */
    void requestCut(final long globalIndex)
    {
        request(-1, globalIndex, "checkpointHere(" + globalIndex + ")");
    }

    /**
     * Asks for a cut before task {@code frontier}, submitted already or the next one, whose admission is held
     * ({@code Engine.holdAdmission}) at or before it; ignored inside the restored prefix.
     */
    void requestCutAt(final long frontier, final long globalIndex)
    {
        if (prefixes == null)
        {
            throw new IllegalStateException("a cut behind the submission front needs a checkpoint policy that " +
                "allows them (CheckpointPolicy.cutsBehindSubmission)");
        }
        request(frontier, globalIndex, "checkpointAt(" + frontier + ", " + globalIndex + ")");
    }

    /** @param at the cut's frontier, or -1 for the next task submitted. */
    private void request(final long at, final long globalIndex, final String call)
    {
        fatal.check();
        synchronized (lock)
        {
            if (closed)
            {
                throw new IllegalStateException(call + " called after close()");
            }
            final long frontier = at < 0 ? nextSeq : at;
            if (frontier > nextSeq)
            {
                throw new IllegalArgumentException("a cut before task #" + frontier + ", but only " + nextSeq +
                    " tasks were submitted");
            }
            if (checkpointing && !restart.holdsCut(frontier, globalIndex))
            {
                engine.publish(new CutRequest(frontier, globalIndex, hashBefore(frontier)));
            }
            if (prefixes != null)
            {
                prefixes.dropBefore(frontier - 1);
            }
        }
    }

    /** Under the lock: the program hash of the tasks before {@code frontier}. */
    private long hashBefore(final long frontier)
    {
        if (frontier == nextSeq)
        {
            return restart.programHash();
        }
        if (frontier == 0)
        {
            return Restart.PROGRAM_HASH_SEED;
        }
        if (!prefixes.holds(frontier - 1))
        {
            throw new IllegalArgumentException("a cut before task #" + frontier + " lies behind an earlier cut");
        }
        return prefixes.after(frontier - 1);
    }

    /** @return the worker that owns a task: the owner of the first object it writes, else the next in turn. */
    private int owner(final DataRef[] refs, final Privilege[] privileges)
    {
        for (int i = 0; i < refs.length; i++)
        {
            if (privileges[i].producesContents())
            {
                return Math.floorMod(refs[i].tag().hashCode(), workers);
            }
        }
        return (int)(nextSeq % workers);
    }

    /**
     * A task without data has no dependencies and needs no DRAM: it goes straight to a ready queue and its worker
     * completes it ({@link Engine#finishOnWorker}), without a trip through the IO thread.
     */
    private void submitWithoutData(final TaskRecord t)
    {
        t.status(TaskStatus.READY);
        t.completesOnWorker = true;
        ready.offer(t);
    }

    /** Holds admission, or ends the hold: submissions are tracked but nothing new is admitted while paused. */
    void paused(final boolean pause)
    {
        synchronized (lock)
        {
            paused = pause;
            engine.publish(pause ? EngineEvent.Kind.PAUSE : EngineEvent.Kind.RESUME, null, null);
        }
    }

    /**
     * Takes no more declarations or submissions.
     *
     * @return false if it was closed already.
     */
    boolean close()
    {
        synchronized (lock)
        {
            if (closed)
            {
                return false;
            }
            closed = true;
            return true;
        }
    }
}
