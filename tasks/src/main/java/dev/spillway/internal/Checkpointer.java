package dev.spillway.internal;

import dev.spillway.Privilege;
import dev.spillway.checkpoint.CheckpointCost;
import dev.spillway.checkpoint.CheckpointMode;
import dev.spillway.checkpoint.CheckpointPolicy;
import dev.spillway.checkpoint.CheckpointReport;
import dev.spillway.checkpoint.CheckpointStore;
import dev.spillway.checkpoint.Cut;
import dev.spillway.checkpoint.RestorePoint;
import dev.spillway.io.CrashPoints;
import dev.spillway.memory.BufferPool;
import dev.spillway.memory.DataObject;
import dev.spillway.memory.DramBudget;
import dev.spillway.memory.TileBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

import static java.lang.System.Logger.Level.WARNING;

/**
 * Checkpoints at cuts, on the IO thread. When the policy says so, the cut's frontier {@code S} is one past the
 * latest task admitted so far, so no task at or after {@code S} has touched its data. Every object written since its
 * last save gets a <em>save task</em>: an internal reader that depends on the object's last writer before {@code S};
 * writers at or after {@code S} of that object are parked at admission until it is captured. A captured object is
 * copied into a spare buffer (semi-blocking, DRAM allowing), which releases it at once, or else written through.
 * In blocking mode every task at or after {@code S} is parked until the commit, and then until the policy lets
 * them go ({@link CheckpointPolicy#mayRelease}), once the objects it names wrong are mended.
 *
 * <p>This class runs that cut protocol. Writes share the IO thread with out-of-core transfers by bytes
 * ({@link IoShare}); the generation commits once every save is written and every task before {@code S} has finished
 * ({@link GenerationCommit}); what it all cost is kept in {@link CheckpointMetrics}.
 */
final class Checkpointer
{
    private static final System.Logger LOG = System.getLogger(Checkpointer.class.getName());
    private static final Privilege[] READ = {Privilege.READ};
    private static final long PROGRESS_NANOS = 1_000_000_000L;

    private final Engine engine;
    private final CheckpointStore store;
    private final CheckpointPolicy policy;
    private final boolean blocking;
    private final BufferPool pool;
    private final DramBudget budget;
    private final Collection<DataRef> objects;
    private final ArrayList<TaskRecord> held = new ArrayList<>();
    /** Cuts requested at a frontier, oldest first; tasks at or past the first one's frontier park in awaitingCut. */
    private final ArrayDeque<CutRequest> requests = new ArrayDeque<>();
    private final ArrayList<TaskRecord> awaitingCut = new ArrayList<>();
    private final ArrayList<TaskRecord> unfinished = new ArrayList<>();
    private final IoShare share;
    private final CheckpointMetrics metrics;
    private final GenerationCommit generation;
    private IoAgent agent;
    private LiveTasks live;
    private Transfers transfers;
    /** A blocking cut committed whose held tasks wait for the policy's release, or null. */
    private volatile Cut releasing;
    /** Why the objects the policy named wrong could not be mended: the held tasks never run. */
    private volatile String unmended;
    private TaskRecord latestAdmitted;
    private long finishedAtCut;
    private long lastCutNanos = System.nanoTime();
    /** When the generation in flight was cut, for the trace. */
    private long cutNanos;

    /** A task failed: the data may be poisoned, so no later cut is taken. */
    private boolean failed;
    private volatile boolean stopped;
    private long userFinished;
    private long nextProgress;
    /** The global index of the requested cut that could not begin at the last try, or -1; for wait reports. */
    private volatile long cutNotBegun = -1;

    Checkpointer(final Engine engine, final CheckpointStore store, final CheckpointPolicy policy,
        final CheckpointMode mode, final double share, final BufferPool pool, final Collection<DataRef> objects,
        final RestorePoint restored, final double restoreSeconds)
    {
        this.engine = engine;
        this.store = store;
        this.policy = policy;
        this.blocking = mode == CheckpointMode.BLOCKING;
        this.pool = pool;
        this.budget = pool.budget();
        this.objects = objects;
        this.share = new IoShare(share);
        this.metrics = new CheckpointMetrics(restored, restoreSeconds);
        this.generation = new GenerationCommit(this, store, pool, metrics, this.share);
    }

    void wire(final IoAgent agent, final Admission admission, final LiveTasks live, final Transfers transfers)
    {
        this.agent = agent;
        this.live = live;
        this.transfers = transfers;
        generation.wire(admission);
    }

    /** Any thread: no cut after this one; a generation in flight still commits. */
    void stop()
    {
        stopped = true;
    }

    /** IO thread: a task was admitted; the next cut's frontier lies past the latest one. */
    void admitted(final TaskRecord t)
    {
        if (!t.saveTask() && (latestAdmitted == null || t.seq > latestAdmitted.seq))
        {
            latestAdmitted = t;
        }
    }

    /**
     * IO thread: the admission front, one past the latest task admitted (or the newest committed cut's frontier): no
     * task at or after it has touched its data.
     */
    long admissionFront()
    {
        return Math.max(latestAdmitted == null ? 0 : latestAdmitted.seq + 1, generation.lastCommittedFrontier());
    }

    /** IO thread: a cut was requested at {@code request.frontier()}; later tasks park until it begins. */
    void requested(final CutRequest request)
    {
        if (request.frontier() < admissionFront())
        {
            throw new IllegalStateException("a cut at global index " + request.globalIndex() + " was requested " +
                "before task #" + request.frontier() + ", but tasks up to #" + (admissionFront() - 1) + " were " +
                "admitted already: it would not be consistent");
        }
        requests.addLast(request);
    }

    /**
     * IO thread: takes a requested cut once the previous generation is done and the policy lets it begin, else a cut
     * of its own if none is in flight, tasks were admitted since the last, and the policy says so.
     */
    private void maybeCut(final long now)
    {
        if (!requests.isEmpty())
        {
            maybeTakeRequested(now);
            return;
        }
        if (generation.inFlight() || releasing != null || unmended != null || failed || stopped ||
            latestAdmitted == null ||
            latestAdmitted.seq + 1 <= generation.lastCommittedFrontier() ||
            !policy.due(userFinished - finishedAtCut, now - lastCutNanos))
        {
            return;
        }
        take(Cut.local(store.nextGeneration(), latestAdmitted.seq + 1, store.incarnation(), latestAdmitted.prefixHash),
            now);
    }

    private void maybeTakeRequested(final long now)
    {
        if (failed || stopped)
        {
            requests.clear();
            releaseAwaitingCut();
            return;
        }
        final CutRequest r = requests.peekFirst();
        if (generation.inFlight() || releasing != null || unmended != null || !policy.mayBegin(r.globalIndex()))
        {
            cutNotBegun = r.globalIndex();
            return;
        }
        cutNotBegun = -1;
        requests.removeFirst();
        final Cut c = new Cut(store.nextGeneration(), r.frontier(), r.globalIndex(), store.incarnation(),
            r.programHash());
        if (!take(c, now))
        {
            requests.clear();
        }
        releaseAwaitingCut();
    }

    /** Tasks parked until a requested cut began are admitted again (and may park on that cut's captures). */
    private void releaseAwaitingCut()
    {
        for (final TaskRecord t : awaitingCut)
        {
            released(t);
        }
        awaitingCut.clear();
    }

    /** @return false if the generation could not begin. */
    private boolean take(final Cut c, final long now)
    {
        final long cutFrontier = c.frontier();
        lastCutNanos = now;
        cutNanos = now;
        finishedAtCut = userFinished;
        if (!generation.begin(c))
        {
            policy.cutAbandoned(c, "the checkpoint store could not begin it");
            return false;
        }
        metrics.cutTaken(now);
        live.copyTo(unfinished);
        long beforeCut = 0;
        for (final TaskRecord t : unfinished)
        {
            beforeCut += !t.saveTask() && t.seq < cutFrontier ? 1 : 0;
        }
        unfinished.clear();
        generation.waitFor(beforeCut);
        for (final DataRef r : objects)
        {
            final TaskRecord lastWriter = lastWriterBefore(r, cutFrontier);
            if (r.writesSinceSave > 0 || lastWriter != null)
            {
                save(r, lastWriter, c);
            }
            else if (r.ioHasContents)
            {
                metrics.inherited();
            }
        }
        generation.maybeCommit();
        return true;
    }

    private static TaskRecord lastWriterBefore(final DataRef r, final long cutFrontier)
    {
        TaskRecord last = null;
        for (final TaskRecord w : r.unfinishedWriters())
        {
            if (w.seq >= cutFrontier)
            {
                break;
            }
            last = w;
        }
        return last;
    }

    private void save(final DataRef r, final TaskRecord lastWriter, final Cut c)
    {
        final TaskRecord s = new TaskRecord(engine, "checkpoint " + c.generation() + " save '" + r.tag() + "'",
            null, new DataRef[] {r}, READ, Integer.MAX_VALUE, c.frontier(), 0);
        s.saveGeneration = c.generation();
        r.savePending = c.generation();
        generation.saveAdded();
        metrics.saved();
        engine.countInternal();
        agent.submitSave(s, lastWriter);
    }

    /**
     * IO thread, at admission: parks {@code t} if it may not run before the checkpoint in flight has what it would
     * change. It is admitted again once that is captured (semi-blocking) or committed (blocking).
     */
    boolean parks(final TaskRecord t)
    {
        if (!requests.isEmpty() && !t.saveTask() && t.seq >= requests.peekFirst().frontier())
        {
            awaitingCut.add(t);
            held(t, "held at the checkpoint cut requested before it (global index " +
                requests.peekFirst().globalIndex() + "), which begins once the previous generation is written " +
                "and the policy allows (on ranks: once every rank committed the previous global cut); see the " +
                "checkpoint line below");
            return true;
        }
        if ((releasing != null || unmended != null) && !t.saveTask())
        {
            held.add(t);
            held(t, unmended != null ? "held for good: " + unmended :
                "held until the tasks after checkpoint generation " + releasing.generation() + " may run");
            return true;
        }
        if (!generation.inFlight() || t.saveTask() || t.seq < generation.frontier())
        {
            return false;
        }
        if (blocking)
        {
            held.add(t);
            held(t, "held until checkpoint generation " + generation.number() + " commits (blocking checkpoints)");
            return true;
        }
        for (int i = 0; i < t.refs.length; i++)
        {
            final DataRef r = t.refs[i];
            if (t.privileges[i] != Privilege.READ && r.savePending == generation.number())
            {
                if (r.parked == null)
                {
                    r.parked = new ArrayList<>(2);
                }
                r.parked.add(t);
                held(t, "held until checkpoint generation " + generation.number() + " captures '" + r.tag() + "'");
                return true;
            }
        }
        return false;
    }

    private void held(final TaskRecord t, final String why)
    {
        t.heldBy = why;
        metrics.heldBegins(t);
    }

    /** Says anew why each task held back at the cut waits, once the generation committed. */
    private void relabelHeld(final String why)
    {
        for (final TaskRecord t : held)
        {
            t.heldBy = why;
        }
    }

    private void released(final TaskRecord t)
    {
        t.heldBy = null;
        metrics.heldEnds(t);
        agent.unpark(t);
    }

    /**
     * The object's save is captured, or will not be ({@code saved} false): tasks parked on it may be admitted (and
     * park again on another object). Its writes count as saved only once the generation commits.
     */
    private void captured(final DataRef r, final boolean saved)
    {
        if (saved)
        {
            r.capturedIn = r.savePending;
            r.writesAtCapture = r.writesSinceSave;
        }
        r.savePending = -1;
        final ArrayList<TaskRecord> waiting = r.parked;
        if (waiting != null && !waiting.isEmpty())
        {
            for (final TaskRecord t : waiting)
            {
                released(t);
            }
            waiting.clear();
        }
    }

    /** IO thread: a save task's object is resident. Copies it if DRAM allows, else writes it through. */
    void capture(final TaskRecord t)
    {
        CrashPoints.hit(CrashPoints.CAPTURE);
        t.status(TaskStatus.RUNNING);
        final DataRef ref = t.refs[0];
        final DataObject o = ref.object;
        if (!generation.current(t))
        {
            agent.finishSave(t);
            return;
        }
        if (!ref.ioHasContents)
        {
            generation.saveSkipped();
            captured(ref, true);
            agent.finishSave(t);
            generation.maybeCommit();
            return;
        }
        final long cost = pool.cost(o.size());
        if (!blocking && budget.capacity() - budget.committed() - cost >= budget.capacity() / 8)
        {
            budget.commit(cost);
            final TileBuffer copy = pool.acquire(o.size());
            if (copy != null)
            {
                final ByteBuffer dst = copy.buffer().clear();
                dst.put(o.buffer().buffer().duplicate().clear().limit(o.size()));
                dst.clear();
                generation.enqueue(ref, copy, o.size(), o.version(), null);
                captured(ref, true);
                agent.finishSave(t);
                return;
            }
            budget.uncommit(cost);
        }
        generation.enqueue(ref, o.buffer(), o.size(), o.version(), t);
    }

    /** IO thread: an object written through from its own buffer is captured; its save task finishes. */
    void writtenThrough(final DataRef ref, final TaskRecord saveTask)
    {
        captured(ref, true);
        agent.finishSave(saveTask);
    }

    boolean hasWrites()
    {
        return generation.hasWrites();
    }

    /**
     * @return whether a checkpoint write may go before waiting transfers: by the configured share of bytes, or at once
     *         when a writer is parked on it.
     */
    boolean ckptTurn(final boolean transfersWaiting)
    {
        return share.checkpointTurn(transfersWaiting) || generation.urgentWrite();
    }

    /** IO thread: a transfer of {@code bytes} went while checkpoint writes waited. */
    void transferWhileWaiting(final int bytes)
    {
        share.transferred(bytes);
    }

    /** IO thread: writes the next captured object. */
    void writeOne(final boolean transfersWaiting)
    {
        generation.writeOne(transfersWaiting);
    }

    /** IO thread: a user task with data finished (done, failed or cancelled). */
    void userFinished(final TaskRecord t, final boolean ok)
    {
        if (t.heldSince != 0)
        {
            metrics.heldEnds(t);
        }
        // Only work done counts: a run stopped for a restart cancels its backlog, which is not progress.
        userFinished += ok ? 1 : 0;
        failed |= !ok;
        generation.userFinished(t, ok);
        metrics.userFinished(userFinished);
    }

    /** IO thread: a save task did not run (its object's producer failed, or close cancelled it). */
    void saveLost(final TaskRecord t)
    {
        if (!generation.current(t))
        {
            return;
        }
        generation.saveLost();
        captured(t.refs[0], false);
        generation.maybeCommit();
    }

    /** IO thread: whether the policy lets the generation of {@code cut} commit. */
    boolean mayCommit(final Cut cut)
    {
        return policy.mayCommit(cut);
    }

    /** IO thread: the policy's sections for the generation of {@code cut}. */
    Map<String, byte[]> sections(final Cut cut)
    {
        return policy.sections(cut);
    }

    /**
     * Any thread, for wait reports (racy reads of the IO thread's state): why no task runs past a cut whose mend
     * failed, why the tasks after a committed cut wait for their release, why the generation in flight has not
     * committed, or why a requested cut has not begun; null when none waits.
     */
    String checkpointWait()
    {
        if (unmended != null)
        {
            return "no task runs past the last checkpoint: " + unmended;
        }
        final Cut release = releasing;
        if (release != null)
        {
            return "the tasks after checkpoint generation " + release.generation() + " (committed) wait for " +
                policy.releaseWait(release);
        }
        final long notBegun = cutNotBegun;
        final String inFlight = generation.waitReason(policy);
        if (inFlight != null)
        {
            return inFlight + (notBegun < 0 ? "" : "; the cut requested at global index " + notBegun +
                " begins after it");
        }
        return notBegun < 0 ? null : "the checkpoint cut requested at global index " + notBegun + " waits for " +
            policy.beginWait(notBegun);
    }

    /**
     * IO thread: the generation of {@code cut} committed: held-back tasks may go once the policy lets them
     * ({@link CheckpointPolicy#mayRelease}).
     */
    void committed(final Cut cut, final CheckpointCost cost)
    {
        engine.traceCheckpoint("checkpoint " + cut.generation(), cutNanos, System.nanoTime());
        policy.committed(cost);
        policy.cutCommitted(cut);
        for (final DataRef r : objects)
        {
            if (r.capturedIn == cut.generation())
            {
                r.writesSinceSave -= r.writesAtCapture;
                r.capturedIn = -1;
            }
        }
        if (blocking && !policy.mayRelease(cut))
        {
            releasing = cut;
            relabelHeld("held until the tasks after checkpoint generation " + cut.generation() + " may run");
            return;
        }
        release(cut);
    }

    /**
     * IO thread: mends what the policy names wrong at {@code cut}, then lets the held tasks go; if the mend fails they
     * stay held, since they would run on wrong data, and the policy is told.
     */
    private void release(final Cut cut)
    {
        releasing = null;
        final Map<String, ByteBuffer> mends = blocking ? policy.mends(cut) : Map.of();
        if (!mends.isEmpty())
        {
            final String failure = mend(cut, mends);
            if (failure != null)
            {
                unmended = failure;
                relabelHeld("held for good: " + failure);
                policy.mended(cut, failure);
                return;
            }
            policy.mended(cut, null);
        }
        releaseHeld();
    }

    /**
     * @return null once the generation of {@code cut} and the live objects hold {@code mends}, else why not. Every
     *         object is checked first; a write that fails later may leave some replaced, but then no task runs past
     *         the cut.
     */
    private String mend(final Cut cut, final Map<String, ByteBuffer> mends)
    {
        try
        {
            final Map<DataObject, ByteBuffer> live = new LinkedHashMap<>();
            for (final Map.Entry<String, ByteBuffer> m : mends.entrySet())
            {
                live.put(Transfers.replaceable(object(m.getKey()), m.getValue()), m.getValue());
            }
            store.mend(cut, mends);
            for (final Map.Entry<DataObject, ByteBuffer> m : live.entrySet())
            {
                transfers.replace(m.getKey(), m.getValue());
            }
            LOG.log(WARNING, "spillway: mended " + mends.keySet() + " in checkpoint generation " + cut.generation() +
                " and in DRAM or the store before the tasks after it run");
            return null;
        }
        catch (final IOException | RuntimeException e)
        {
            return "could not mend " + mends.keySet() + " at checkpoint generation " + cut.generation() + ": " + e;
        }
    }

    private DataObject object(final String tag)
    {
        for (final DataRef r : objects)
        {
            if (r.tag().equals(tag))
            {
                return r.object;
            }
        }
        throw new IllegalArgumentException("no data object '" + tag + "' to mend");
    }

    /**
     * IO thread: the generation of {@code cut} was abandoned: objects still to capture and held-back tasks are let
     * go.
     */
    void abandoned(final Cut cut, final String why)
    {
        engine.traceCheckpoint("checkpoint " + cut.generation() + " abandoned", cutNanos, System.nanoTime());
        policy.cutAbandoned(cut, why);
        for (final DataRef r : objects)
        {
            if (r.savePending >= 0)
            {
                captured(r, false);
            }
            r.capturedIn = -1;
        }
        releaseHeld();
    }

    private void releaseHeld()
    {
        if (unmended != null)
        {
            return;
        }
        for (final TaskRecord t : held)
        {
            released(t);
        }
        held.clear();
    }

    /** IO thread, every duty cycle: records progress once a second. */
    void tick(final long now)
    {
        if (generation.gated())
        {
            generation.maybeCommit();
        }
        if (releasing != null && policy.mayRelease(releasing))
        {
            release(releasing);
        }
        maybeCut(now);
        if (now >= nextProgress)
        {
            nextProgress = now + PROGRESS_NANOS;
            store.progress(metrics.restoredTasks() + userFinished);
        }
    }

    /** After the threads stopped: drops an unfinished generation and, after a complete run, marks it so. */
    void close(final boolean runComplete)
    {
        try
        {
            generation.close();
            if (runComplete)
            {
                store.markComplete();
            }
            else
            {
                store.progress(metrics.restoredTasks() + userFinished);
            }
            store.close();
        }
        catch (final IOException e)
        {
            LOG.log(WARNING, "spillway: closing the checkpoint store: " + e.getMessage());
        }
    }

    CheckpointReport report(final CheckpointMode mode)
    {
        return metrics.report(mode, policy.describe(), userFinished);
    }
}
