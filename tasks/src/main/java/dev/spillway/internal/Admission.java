package dev.spillway.internal;

import dev.spillway.IoOrder;
import dev.spillway.SpillwayConfig;
import dev.spillway.TaskFailedException;
import dev.spillway.memory.BufferPool;
import dev.spillway.memory.ByteUnits;
import dev.spillway.memory.DataObject;
import dev.spillway.memory.DramBudget;
import dev.spillway.memory.Residency;
import dev.spillway.memory.ResidentObjects;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;

/**
 * Admission of tasks into DRAM by IO policy (Algorithm 3 of seed 003), eviction, and look-ahead; IO thread only.
 *
 * <p>The policy's next task is admitted only when DRAM can be found for every object it lacks, by evicting
 * unreferenced objects if need be; otherwise admission waits for completions. Under orders {@code a} and {@code p},
 * every waiting task that lacks nothing is admitted before anything is evicted (data reuse, after StarPU's
 * {@code dmdar}): a consumer of data just produced takes it while it is in DRAM, rather than after a new producer has
 * evicted it. Order {@code f} keeps strict arrival order, seed 003's baseline. A task that must evict waits while
 * the admission window ({@link SpillwayConfig#admissionWindow}) is full, so DRAM holds what the running tasks reuse
 * rather than the inputs of tasks far ahead. Checkpoint saves bypass the policy's order and the window: a save whose
 * object is resident goes at once, and semi-blocking saves that must fetch their object go one at a time, so a
 * checkpoint trickles through DRAM instead of displacing what the running tasks reuse. Admission takes a reference on
 * each of the task's objects, so nothing it needs is evicted before it runs.
 */
final class Admission
{
    private static final String SAVE_WAITS = "checkpoint save waiting for its turn to fetch its object (semi-blocking " +
        "saves that must fetch go one at a time, those that writers wait for first)";

    private final IoAgent agent;
    private final Transfers transfers;
    private final BufferPool pool;
    private final DramBudget budget;
    private final ResidentObjects resident;
    private final Counters counters;
    private final PendingQueue pending;
    /** Checkpoint saves whose object's last writer before the cut has finished, oldest first. */
    private final ArrayDeque<TaskRecord> saves = new ArrayDeque<>();
    /** Saves that fetch their object, admitted and unfinished, beyond which the next one waits. */
    private int saveFetches = Integer.MAX_VALUE;
    private Checkpointer checkpointer;
    private final ArrayDeque<TaskRecord> lookahead = new ArrayDeque<>();
    private final ArrayList<TaskRecord> lackingNothing = new ArrayList<>();
    /**
     * Tasks that needed no DRAM as they were queued: the reuse pass's candidates, so it need not scan the queue. The
     * queue keeps their entries; those the pass takes turn stale ({@link TaskRecord#staleQueueEntries}).
     */
    private final ArrayList<TaskRecord> arrivedResident = new ArrayList<>();
    private int staleInPending;
    private int pruneArrivedAt = 1024;
    private final boolean reuse;
    private final int prefetchDepth;
    /** Admitted, unfinished tasks beyond which a task that must evict waits. */
    private final int window;
    private final long cleanReserveBytes;
    private final LiveData liveData;
    private boolean lookAheadDue = true;
    private boolean admissionDue;
    private int compactAt = 1024;

    Admission(final IoAgent agent, final Transfers transfers, final BufferPool pool, final ResidentObjects resident,
        final Counters counters, final LiveData liveData, final SpillwayConfig config)
    {
        this.liveData = liveData;
        this.agent = agent;
        this.transfers = transfers;
        this.pool = pool;
        this.budget = pool.budget();
        this.resident = resident;
        this.counters = counters;
        this.pending = PendingQueue.of(config.ioOrder());
        this.reuse = config.ioOrder() != IoOrder.FIFO;
        this.prefetchDepth = config.prefetchDepth();
        this.window = config.admissionWindow() == 0 ? Integer.MAX_VALUE :
            (int)Math.min(Integer.MAX_VALUE, (long)config.admissionWindow() * config.workers());
        this.cleanReserveBytes = (long)(config.cleanReserve() * config.dramBudget());
    }

    /** @param fetchingSaves saves that fetch their object at once: 1 for semi-blocking, unbounded for blocking. */
    void checkpointer(final Checkpointer checkpointer, final int fetchingSaves)
    {
        this.checkpointer = checkpointer;
        this.saveFetches = fetchingSaves;
    }

    /** A task with data was submitted: a candidate for look-ahead until admitted. */
    void submitted(final TaskRecord t)
    {
        if (prefetchDepth > 0)
        {
            lookahead.addLast(t);
            if (lookahead.size() >= compactAt)
            {
                lookahead.removeIf(u -> u.admitted || u.isDone());
                compactAt = Math.max(1024, 2 * lookahead.size());
            }
        }
        lookAheadDue = true;
    }

    /** Something admission and look-ahead depend on changed (a completion, a transfer): look again. */
    void changed()
    {
        lookAheadDue = true;
        admissionDue = true;
    }

    /** A task's dependencies are met: queue it for admission. */
    void enqueue(final TaskRecord t)
    {
        t.status(TaskStatus.PENDING);
        if (t.saveTask())
        {
            t.heldBy = SAVE_WAITS;
            saves.addLast(t);
            admissionDue = true;
            return;
        }
        pending.add(t);
        admissionDue = true;
        if (reuse && needBytes(t) == 0)
        {
            arrivedResident.add(t);
            if (arrivedResident.size() >= pruneArrivedAt)
            {
                arrivedResident.removeIf(u -> u.status() != TaskStatus.PENDING);
                pruneArrivedAt = Math.max(1024, 2 * arrivedResident.size());
            }
        }
    }

    /** @return admitted, unfinished tasks beyond which a task that must evict waits. */
    int window()
    {
        return window;
    }

    int pendingCount()
    {
        return pending.size() - staleInPending + saves.size();
    }

    void drainPending(final ArrayList<TaskRecord> sink)
    {
        sink.addAll(saves);
        saves.clear();
        final int from = sink.size();
        pending.drainTo(sink);
        for (int i = sink.size() - 1; i >= from; i--)
        {
            final TaskRecord t = sink.get(i);
            if (t.staleQueueEntries > 0)
            {
                t.staleQueueEntries--;
                sink.remove(i);
            }
        }
        staleInPending = 0;
        arrivedResident.clear();
    }

    /**
     * Admits tasks in policy order while DRAM allows; returns how many. Runs only after something changed (a task
     * queued, a completion, a transfer), so a blocked queue is not rescanned on every idle cycle.
     */
    int admit()
    {
        if (!admissionDue)
        {
            return 0;
        }
        admissionDue = false;
        int n = saves.isEmpty() ? 0 : admitSaves();
        TaskRecord t;
        while ((t = pending.peek()) != null)
        {
            if (t.staleQueueEntries > 0)
            {
                pending.pop();
                t.staleQueueEntries--;
                staleInPending--;
                continue;
            }
            if (checkpointer != null && checkpointer.parks(t))
            {
                pending.pop();
                continue;
            }
            final long need = needBytes(t);
            t.needBytes = need;
            final boolean evicts = need > budget.available();
            final int taken = evicts && reuse ? admitResident() : 0;
            if (taken > 0)
            {
                n += taken;
                continue;
            }
            if (evicts && agent.windowed() >= window)
            {
                break;
            }
            if (evicts && !makeRoom(t, need))
            {
                if (agent.idle() && transfers.isEmpty())
                {
                    pending.pop();
                    agent.fail(t, cannotMakeRoom(t, need));
                    n++;
                    continue;
                }
                break;
            }
            pending.pop();
            admit(t);
            n++;
        }
        if (pending.size() == staleInPending)
        {
            // Nothing waits, so no arrival is a candidate: drop them rather than keep finished tasks reachable.
            arrivedResident.clear();
        }
        if (n > 0)
        {
            lookAheadDue = true;
        }
        return n;
    }

    /**
     * Admits every save whose object is resident, then, while the lane has room, those that fetch theirs: first any
     * that a writer after the cut is parked on, else the oldest.
     */
    private int admitSaves()
    {
        int n = 0;
        for (final Iterator<TaskRecord> it = saves.iterator(); it.hasNext(); )
        {
            final TaskRecord s = it.next();
            if (needBytes(s) == 0)
            {
                it.remove();
                admitSave(s, 0);
                n++;
            }
        }
        while (!saves.isEmpty() && agent.fetchingSaves() < saveFetches)
        {
            final TaskRecord s = nextSave();
            final long need = needBytes(s);
            s.needBytes = need;
            if (!makeRoom(s, need))
            {
                break;
            }
            saves.remove(s);
            admitSave(s, need);
            n++;
        }
        return n;
    }

    private TaskRecord nextSave()
    {
        for (final TaskRecord s : saves)
        {
            final ArrayList<TaskRecord> parked = s.refs[0].parked;
            if (parked != null && !parked.isEmpty())
            {
                return s;
            }
        }
        return saves.peekFirst();
    }

    private void admitSave(final TaskRecord s, final long need)
    {
        s.heldBy = null;
        s.needBytes = need;
        admit(s);
    }

    /**
     * Admits every waiting task that needed no DRAM as it was queued and still needs none, in policy order among
     * themselves, so that no eviction for another task takes their data first. Returns how many it took from the
     * queue. It looks only at those arrivals, not the whole queue, so a long blocked queue costs nothing here.
     */
    private int admitResident()
    {
        for (final TaskRecord t : arrivedResident)
        {
            if (t.status() == TaskStatus.PENDING && !t.admitted && t.heldBy == null && t.staleQueueEntries == 0 &&
                needBytes(t) == 0)
            {
                t.staleQueueEntries++;
                staleInPending++;
                lackingNothing.add(t);
            }
        }
        arrivedResident.clear();
        if (lackingNothing.isEmpty())
        {
            return 0;
        }
        lackingNothing.sort(PendingQueue.PRIORITY_THEN_SEQ);
        final int n = lackingNothing.size();
        for (final TaskRecord t : lackingNothing)
        {
            if (checkpointer == null || !checkpointer.parks(t))
            {
                t.needBytes = 0;
                admit(t);
            }
        }
        lackingNothing.clear();
        return n;
    }

    /** Nothing runs or moves, so nothing will free DRAM: only objects that could not be written hold it. */
    private TaskFailedException cannotMakeRoom(final TaskRecord t, final long need)
    {
        final IOException spill = transfers.lastSpillFailure();
        return new TaskFailedException("task '" + t.name + "' needs " + ByteUnits.format(need) + " of DRAM, but only " +
            ByteUnits.format(budget.available()) + " are free and the rest is held by objects whose write-back failed" +
            (spill == null ? "" : ": " + spill.getMessage()), spill);
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
                need += pool.cost(o.size());
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

    /** A task left {@code o}'s contents dead (SCRATCH, a failure) or defined. */
    void contents(final DataObject o, final boolean dead)
    {
        liveData.contents(o, dead);
    }

    /**
     * Drops a dead object: its DRAM buffer and stored block go, and nothing is written back. An object in flight is
     * left to finish its transfer; it is then clean and discardable, so eviction drops it without a write.
     */
    void discard(final DataObject o)
    {
        o.dirty(false);
        liveData.contents(o, true);
        final Residency r = o.residency();
        if (r == Residency.IN_MEM && o.refCount() == 0)
        {
            transfers.drop(o);
            budget.uncommit(pool.cost(o.size()));
        }
        else if (r != Residency.IN_NVM)
        {
            return;
        }
        if (o.stored())
        {
            transfers.discard(o);
            o.stored(false);
        }
        o.residency(Residency.UNMATERIALIZED);
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
            budget.startRelease(pool.cost(v.size()));
            transfers.enqueue(v);
            return;
        }
        counters.cleanEvictions++;
        transfers.drop(v);
        if (v.discardable() && v.stored())
        {
            transfers.discard(v);
            v.stored(false);
        }
        v.residency(v.stored() ? Residency.IN_NVM : Residency.UNMATERIALIZED);
        budget.uncommit(pool.cost(v.size()));
    }

    private void admit(final TaskRecord t)
    {
        reserve(t);
        agent.admitted(t);
    }

    /**
     * Takes DRAM and a reference for each of {@code t}'s objects, and queues the transfers it needs. A hand-over
     * ({@link HandOvers}) calls it directly for a task whose objects are all resident, and makes the task ready itself.
     */
    void reserve(final TaskRecord t)
    {
        t.admitted = true;
        if (checkpointer != null)
        {
            checkpointer.admitted(t);
        }
        t.status(TaskStatus.FETCHING);
        for (int i = 0; i < t.refs.length; i++)
        {
            final DataObject o = t.refs[i].object;
            o.retain();
            o.nextUse();
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
                        budget.endRelease(pool.cost(o.size()), false);
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
                    fetch(o, reads);
                    await(t, o);
                }
            }
        }
    }

    private static void await(final TaskRecord t, final DataObject o)
    {
        o.waiters().add(t);
        t.outstanding++;
    }

    private void fetch(final DataObject o, final boolean reads)
    {
        budget.commit(pool.cost(o.size()));
        o.residency(Residency.TO_MEM);
        o.fetchReads(reads);
        transfers.enqueue(o);
    }

    /**
     * While the IO thread is otherwise idle: reads an input of an upcoming task into free DRAM (never evicting), or
     * else, once the declared data could outgrow the budget, writes back a dirty object to keep the clean reserve.
     * Returns 1 if it started a transfer. It looks only after something changed, so an idle IO thread does not
     * rescan the same tasks.
     */
    int lookAhead()
    {
        if (!lookAheadDue || !transfers.isEmpty())
        {
            return 0;
        }
        TaskRecord head;
        while ((head = lookahead.peekFirst()) != null && (head.admitted || head.isDone()))
        {
            lookahead.pollFirst();
        }
        if (prefetch() || writeBehind())
        {
            return 1;
        }
        lookAheadDue = false;
        return 0;
    }

    private boolean prefetch()
    {
        if (prefetchDepth == 0 || pendingCount() > 0)
        {
            return false;
        }
        int seen = 0;
        for (final TaskRecord t : lookahead)
        {
            if (t.admitted || t.isDone())
            {
                continue;
            }
            if (++seen > prefetchDepth)
            {
                break;
            }
            for (int i = 0; i < t.refs.length; i++)
            {
                final DataObject o = t.refs[i].object;
                if (t.privileges[i].readsContents() && o.residency() == Residency.IN_NVM &&
                    pool.cost(o.size()) <= budget.available() - cleanReserveBytes)
                {
                    counters.prefetches++;
                    counters.misses++;
                    fetch(o, true);
                    return true;
                }
            }
        }
        return false;
    }

    private boolean writeBehind()
    {
        if (cleanReserveBytes == 0 || budget.available() + resident.cleanBytes() >= cleanReserveBytes ||
            !liveData.mayOutgrowBudget())
        {
            return false;
        }
        final DataObject v = resident.chooseWriteBehind();
        if (v == null)
        {
            return false;
        }
        counters.writeBehinds++;
        v.residency(Residency.TO_NVM);
        v.keepAfterWrite(true);
        transfers.enqueue(v);
        return true;
    }
}
