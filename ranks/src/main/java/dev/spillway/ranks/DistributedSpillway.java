package dev.spillway.ranks;

import dev.spillway.CloseMode;
import dev.spillway.Data;
import dev.spillway.DataNotWrittenException;
import dev.spillway.Privilege;
import dev.spillway.Spillway;
import dev.spillway.SpillwayConfig;
import dev.spillway.TaskBody;
import dev.spillway.TaskBuilder;
import dev.spillway.TaskHandle;
import dev.spillway.TaskRuntime;
import dev.spillway.spi.TaskDeclarations;
import dev.spillway.rdma.Collectives;
import dev.spillway.rdma.Transport;

import java.io.IOException;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * One rank of a distributed task graph: every rank runs the same sequential-task-flow program, and each data object
 * has an owner rank (see {@link Owners}).
 * <ul>
 * <li>A task runs on the owner of the first object it writes (WRITE or READ_WRITE); a task writing nothing, such as
 * a checksum or a verification read, runs on rank 0.</li>
 * <li>Before it, every object it reads whose latest version its rank lacks is moved there: the holding rank (the
 * owner when it holds it) submits a send task reading the object, the running rank a receive task writing its local
 * copy. Transfers are ordinary tasks of the local runtimes, ordered by the same dependency rules, admitted under the
 * same DRAM budget (a received copy may spill), and run without holding a worker.</li>
 * <li>Each version moves to a rank at most once; a later write on any rank makes older copies stale.</li>
 * </ul>
 * Every rank must declare the same objects and submit the same tasks in the same order; a mismatch is detected when
 * a transfer carries an unexpected version or size.
 *
 * <p>Checkpoints: with a {@link GlobalCheckpoints} as the configuration's checkpoint policy (any other policy is
 * refused), every rank cuts at the same global submission indices, and a lost rank no longer fails the job: every
 * rank stops, and {@link #awaitAll()} throws {@link RestartNeededException}, so the job can be started again and
 * resume from its newest global checkpoint. Without checkpoints a lost rank fails the tasks that wait on it.
 */
public final class DistributedSpillway implements TaskRuntime
{
    /** Rank running tasks that write nothing. */
    public static final int ROOT = 0;
    /**
     * Tags below {@code FIRST_DATA_TAG - RESERVED_TAGS} are free for the caller's own messages; the ones from there
     * up carry this runtime's barriers and checkpoint agreement (from {@code FIRST_DATA_TAG - 13} down: the buddy
     * copies of {@code resilience.buddy}), data transfers use the ones above.
     */
    public static final int FIRST_DATA_TAG = 1 << 20;
    /** How many tags below {@link #FIRST_DATA_TAG} the runtime and its resilience modules keep for themselves. */
    public static final int RESERVED_TAGS = 32;
    private static final int BARRIER_TAG = FIRST_DATA_TAG - 1;
    private static final long BARRIER_REPORT_SECONDS = 30;

    private final Transport transport;
    private final Spillway local;
    private final int rank;
    private final IdentityHashMap<Data, Placement> placements = new IdentityHashMap<>();
    private final RankCounters counters = new RankCounters();
    private final Object submitLock = new Object();
    private int nextTag = FIRST_DATA_TAG;
    private long tasksHere;
    private long tasksElsewhere;
    private final GlobalCheckpoints checkpoints;
    private final SubmissionCuts cuts;
    private final JobLoss loss;
    /** Under the submission lock: whether the last {@link #awaitAll()} succeeded, with nothing submitted since. */
    private boolean awaitedAll;
    private final RankProtocol protocol;
    private final AckMessages acks;
    private final PeerSessions sessions;
    private final Greetings greetings;
    private final RecoverySessions recovery;
    private final RootBarriers rootBarriers;
    private volatile boolean closed;
    /** Null for none. */
    private final Recorder recorder;
    /** Barriers this rank passed. */
    private volatile long barriers;

    /**
     * @param transport this rank's transport; the caller closes it after this runtime (this rank closes it first
     *                  once its job is lost).
     * @param config the local runtime's settings (budget, workers, store) for this rank; with checkpoints, a
     *               {@link GlobalCheckpoints} policy of its own.
     */
    public DistributedSpillway(final Transport transport, final SpillwayConfig config)
    {
        this(transport, config, RankProtocol.NONE);
    }

    /**
     * @param transport this rank's transport; the caller closes it after this runtime (this rank closes it first
     *                  once its job is lost).
     * @param config the local runtime's settings, with a {@link GlobalCheckpoints} policy of its own when
     *               {@code protocol} runs (it keeps its state in the checkpoints).
     * @param protocol the message-logging protocol every transfer goes through, or {@link RankProtocol#NONE}.
     */
    public DistributedSpillway(final Transport transport, final SpillwayConfig config, final RankProtocol protocol)
    {
        this(transport, config, protocol, null);
    }

    /**
     * @param transport this rank's transport; the caller closes it after this runtime (this rank closes it first
     *                  once its job is lost).
     * @param config the local runtime's settings, as for {@link #DistributedSpillway(Transport, SpillwayConfig,
     *               RankProtocol)}.
     * @param protocol the message-logging protocol every transfer goes through, or {@link RankProtocol#NONE}.
     * @param recorder hears of this rank's local submissions, transfer halves and cuts, and of the protocol's
     *                 events, from before any of them can happen (a recovery session may open as soon as this
     *                 runtime exists); null for none. For {@code run --trace-p2f} and the cut checker in tests.
     */
    public DistributedSpillway(final Transport transport, final SpillwayConfig config, final RankProtocol protocol,
        final Recorder recorder)
    {
        this.transport = transport;
        this.protocol = protocol;
        this.recorder = recorder;
        if (protocol.active() && !(config.checkpointPolicy() instanceof GlobalCheckpoints))
        {
            throw new IllegalArgumentException("rank " + transport.rank() + ": a message-logging protocol keeps its " +
                "state in checkpoints; configure a GlobalCheckpoints policy");
        }
        this.rank = transport.rank();
        if (config.checkpointPolicy() != null && !(config.checkpointPolicy() instanceof GlobalCheckpoints))
        {
            throw new IllegalArgumentException("rank " + rank + ": checkpoints on ranks need a GlobalCheckpoints " +
                "policy, so every rank cuts at the same global index; got " + config.checkpointPolicy().describe());
        }
        this.checkpoints = (GlobalCheckpoints)config.checkpointPolicy();
        if (checkpoints != null)
        {
            checkpoints.checkUnattached();
        }
        this.local = config.build();
        if (checkpoints != null)
        {
            checkpoints.handOver(protocol);
        }
        if (recorder != null)
        {
            protocol.record(recorder);
        }
        this.cuts = new SubmissionCuts(submitLock, local, checkpoints, protocol, recorder);
        this.sessions = protocol.active() ? new PeerSessions(transport) : null;
        if (sessions != null)
        {
            transport.addPeerListener(sessions);
        }
        this.loss = new JobLoss(transport, local, checkpoints, cuts, protocol);
        if (checkpoints != null)
        {
            checkpoints.attach(transport, this);
        }
        this.acks = protocol.active() ? new AckMessages(transport, protocol, sessions, this::stopping,
            why -> restartNeeded("rank " + rank + ": " + why, -1)) : null;
        this.greetings = protocol.active() ? new Greetings(transport, local, protocol, sessions, this::wireTag,
            () -> barriers, this::stopping, why -> restartNeeded("rank " + rank + ": " + why, -1)) : null;
        this.recovery = protocol.active() ? new RecoverySessions(transport, protocol, sessions, checkpoints,
            this::rollBack, this::stopping, why -> restartNeeded("rank " + rank + ": " + why, -1)) : null;
        // Not stopped by close(): the checkpoints' last barriers come after it.
        this.rootBarriers = protocol.active() ? new RootBarriers(transport, sessions, () -> loss.restart() != null,
            () -> closed, why -> restartNeeded("rank " + rank + ": " + why, -1)) : null;
        if (acks != null)
        {
            acks.start();
            greetings.start();
            recovery.start();
            rootBarriers.start();
        }
    }

    /** @return the transport tag of {@code data}'s transfers. */
    private int wireTag(final Data data)
    {
        synchronized (submitLock)
        {
            return placements.get(data).tag;
        }
    }

    /** @return the protocol's peer sessions, or null without a protocol. */
    PeerSessions sessions()
    {
        return sessions;
    }

    /** @return the message-logging protocol, or {@link RankProtocol#NONE}. */
    public RankProtocol protocol()
    {
        return protocol;
    }

    /** @return whether this rank closed or stops for a restart: it answers no peer's protocol messages any more. */
    private boolean stopping()
    {
        return closed || loss.restart() != null;
    }

    /** A recovery line sends this rank back to {@code cut}: it records the cut for its next incarnation and stops. */
    private void rollBack(final long cut, final String why)
    {
        try
        {
            checkpoints.rollBackTo(cut);
        }
        catch (final IOException e)
        {
            restartNeeded("rank " + rank + ": " + why + ", but it cannot record that (" + e.getMessage() + ")", -1);
            return;
        }
        loss.rollBack(why);
    }

    /** @return the recovery sessions rank 0 coordinated so far (empty elsewhere, and without a protocol). */
    public List<RecoveryOutcome> recoveryOutcomes()
    {
        return recovery == null ? List.of() : recovery.outcomes();
    }

    /** Rank 0 or a rank's checkpoint asks for a restart from the newest global checkpoint. */
    void restartNeeded(final String why, final int lostRank)
    {
        loss.restartNeeded(why, lostRank);
    }

    /**
     * Holds this rank's admission until {@link #cutAt}; submissions go on.
     *
     * @return its admission front as a global index: no task at or after it was admitted here.
     */
    long holdForCut()
    {
        return cuts.hold();
    }

    /** The ranks agreed to cut at {@code index} ({@code Cut.LOCAL}: no cut), at or after every admission front. */
    void cutAt(final long index)
    {
        cuts.cutAt(index);
    }

    /** @return this rank. */
    @Override
    public int rank()
    {
        return rank;
    }

    /** @return the number of ranks. */
    @Override
    public int ranks()
    {
        return transport.size();
    }

    /**
     * Declares a data object on every rank; only {@code owner} and ranks that receive or write it ever hold bytes.
     *
     * @param tag   a stable name, unique within the job.
     * @param size  bytes.
     * @param owner the rank that owns it.
     */
    @Override
    public Data data(final String tag, final int size, final int owner)
    {
        return declare(tag, size, owner, false);
    }

    /**
     * Declares a data object pinned in DRAM on its owner (see {@link Spillway#pinnedData}); copies on other ranks are
     * ordinary objects that may spill.
     */
    @Override
    public Data pinnedData(final String tag, final int size, final int owner)
    {
        return declare(tag, size, owner, true);
    }

    private Data declare(final String tag, final int size, final int owner, final boolean pinned)
    {
        if (owner < 0 || owner >= ranks())
        {
            throw new IllegalArgumentException("data '" + tag + "': owner rank " + owner + " is not in 0.." +
                (ranks() - 1));
        }
        if (protocol.active() && tag.startsWith(RankProtocol.RESERVED))
        {
            throw new IllegalArgumentException("data '" + tag + "': tags beginning with '" + RankProtocol.RESERVED +
                "' are reserved for the message-logging protocol");
        }
        synchronized (submitLock)
        {
            if (nextTag == RankTransfer.NOTICE_TAG_OFFSET)
            {
                throw new IllegalStateException("data '" + tag + "': too many data objects for the tag space");
            }
            final Data d = pinned && owner == rank ? local.pinnedData(tag, size) : local.data(tag, size);
            placements.put(d, new Placement(d, owner, nextTag++, ranks()));
            return d;
        }
    }

    /** Starts declaring a task; every rank must submit it, and it runs on one of them (see the class comment). */
    @Override
    public TaskBuilder task(final String name)
    {
        return TaskDeclarations.builder(name, this::submit);
    }

    /**
     * Waits for this rank's tasks and transfers, failing as {@link Spillway#awaitAll()} does (a failed rank does not
     * wait: its peers see it lost), then for every rank to get here.
     */
    @Override
    public void awaitAll()
    {
        try
        {
            local.awaitAll();
            barrier();
        }
        catch (final RuntimeException e)
        {
            throw loss.restartOr(e);
        }
        synchronized (submitLock)
        {
            awaitedAll = true;
        }
    }

    /**
     * Returns once every rank called it; fails naming a lost rank. With a message-logging protocol it outlives a
     * loss ({@link RootBarriers}): it first waits for every peer to be up and greeted, and a rank started again
     * returns at once from a barrier the others passed without it.
     */
    public void barrier()
    {
        if (sessions != null)
        {
            for (int r = 0; r < ranks(); r++)
            {
                // Ends with the rank's stop for a restart too: a peer it waits for may then never greet it.
                final int peer = r;
                awaitBarrier(sessions.ready(r), () -> sessions.waitReason(peer));
            }
            if (greetings.passedByPeers() <= barriers)
            {
                awaitBarrier(rootBarriers.arrive(barriers), rootBarriers::waitReason);
            }
            barriers++;
            return;
        }
        // Ends with the rank's stop for a restart too: a peer stopped for one (a replica's failed comparison, say)
        // leaves it, while a peer waiting for this rank's commit never arrives.
        awaitBarrier(Collectives.barrierAsync(transport, BARRIER_TAG), () -> "every rank to reach it");
        barriers++;
    }

    /**
     * Waits for {@code step} of a barrier, or this rank's stop for a restart, saying every
     * {@link #BARRIER_REPORT_SECONDS} what it waits for.
     */
    private void awaitBarrier(final CompletableFuture<Void> step, final Supplier<String> reason)
    {
        final CompletableFuture<Object> ends = CompletableFuture.anyOf(step, loss.future());
        while (true)
        {
            try
            {
                ends.get(BARRIER_REPORT_SECONDS, TimeUnit.SECONDS);
                return;
            }
            catch (final TimeoutException e)
            {
                System.err.println("spillway: rank " + rank + " waits at barrier " + barriers + " for " +
                    reason.get());
            }
            catch (final ExecutionException e)
            {
                throw e.getCause() instanceof RuntimeException r ? r : new CompletionException(e.getCause());
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new CancellationException("rank " + rank + ": interrupted at barrier " + barriers);
            }
        }
    }

    /** @return this rank's runtime, for its counters and settings. */
    @Override
    public Spillway local()
    {
        return local;
    }

    /** @return the transport this rank uses. */
    public Transport transport()
    {
        return transport;
    }

    /** @return what this rank ran and moved so far. */
    public RankStats stats()
    {
        synchronized (submitLock)
        {
            return new RankStats(rank, tasksHere, tasksElsewhere, counters.sends.get(), counters.bytesSent.get(),
                counters.receives.get(), counters.bytesReceived.get(), counters.duplicates.get());
        }
    }

    /**
     * Closes this rank's runtime (after its tasks, as {@link Spillway#close()}). The transport stays open, unless the
     * job was lost (a rank lost without checkpoints, or this rank stopped for a restart): the rank closed it then.
     */
    @Override
    public void close()
    {
        closed = true;
        loss.close();
        if (sessions != null)
        {
            transport.removePeerListener(sessions);
            greetings.close();
            recovery.close();
        }
        try
        {
            if (checkpoints == null)
            {
                local.close();
                return;
            }
            closeWithCheckpoints();
        }
        finally
        {
            if (rootBarriers != null)
            {
                rootBarriers.close();
            }
            protocol.close();
        }
    }

    private void closeWithCheckpoints()
    {
        boolean complete = false;
        final boolean sawSuccess = awaitedAll;
        try
        {
            if (loss.restart() == null && awaitedAll)
            {
                checkpoints.finish();
                complete = true;
            }
        }
        catch (final RuntimeException e)
        {
            throw loss.restartOr(e);
        }
        finally
        {
            checkpoints.close();
            local.close(complete && loss.restart() == null ? CloseMode.DRAIN : CloseMode.CANCEL);
        }
        if (sawSuccess && loss.restart() != null)
        {
            // The loss came after the caller's last awaitAll() succeeded: it has not heard of it.
            throw loss.restart();
        }
    }

    /** @return why this rank stopped for a restart, or null. */
    public RestartNeededException restartNeeded()
    {
        return loss.restart();
    }

    /** @return this rank's global checkpoints, or null without checkpoints. */
    public GlobalCheckpoints checkpoints()
    {
        return checkpoints;
    }

    private TaskHandle submit(final String name, final TaskBody body, final Data[] data, final Privilege[] privileges,
        final int priority)
    {
        final RestartNeededException restart = loss.restart();
        if (restart != null)
        {
            throw restart;
        }
        synchronized (submitLock)
        {
            awaitedAll = false;
            final long globalIndex = cuts.begin();
            final Placement[] objects = new Placement[data.length];
            for (int i = 0; i < objects.length; i++)
            {
                objects[i] = placements.get(data[i]);
                if (objects[i] == null)
                {
                    throw new IllegalArgumentException("task '" + name + "': " + data[i] + " was not declared " +
                        "by this DistributedSpillway");
                }
                if (privileges[i].readsContents() && objects[i].holder() < 0)
                {
                    throw new DataNotWrittenException("task '" + name + "' reads '" + data[i].tag() +
                        "', which no earlier task wrote (or whose last use was SCRATCH)");
                }
            }
            final int runsOn = Placement.runsOn(objects, privileges, ROOT);
            for (int i = 0; i < objects.length; i++)
            {
                if (Placement.moves(objects, privileges, i, runsOn))
                {
                    move(objects[i], runsOn, priority, globalIndex);
                }
            }
            final TaskHandle handle;
            if (runsOn == rank)
            {
                final TaskBuilder task = local.task(name).priority(priority);
                for (int i = 0; i < objects.length; i++)
                {
                    task.access(objects[i].local, privileges[i]);
                }
                handle = task.submit(body);
                cuts.submitted(globalIndex, handle.seq());
                tasksHere++;
                if (recorder != null)
                {
                    recorder.task(globalIndex, handle.seq());
                }
            }
            else
            {
                handle = new ElsewhereHandle(name, runsOn);
                tasksElsewhere++;
            }
            Placement.ran(objects, privileges, runsOn);
            cuts.end();
            return handle;
        }
    }

    /** Submits this rank's side of moving the latest version of {@code object} to {@code target}. */
    private void move(final Placement object, final int target, final int priority, final long globalIndex)
    {
        final int source = object.holder();
        final boolean stamped = checkpoints == null || globalIndex >= checkpoints.restoredIndex();
        TaskHandle half = null;
        if (source == rank)
        {
            final RankProtocol.Stamp stamp = stamped ? protocol.sending(target, object.local.tag(), object.version,
                object.local.size()) : RankProtocol.Stamp.NONE;
            final RankTransfer send = RankTransfer.send(transport, object, target, counters, loss, stamp,
                stamped ? protocol : RankProtocol.NONE, sessions);
            half = local.task(send.name()).read(object.local).priority(priority).submit(send);
            cuts.submitted(globalIndex, half.seq());
            if (protocol.capturesAtSend(target))
            {
                capture(object, target, priority, globalIndex);
            }
        }
        else if (target == rank)
        {
            final long ssn = stamped ? protocol.receiving(source) : RankProtocol.Stamp.NONE.ssn();
            final RankTransfer receive = RankTransfer.receive(transport, object, source, counters, loss,
                ssn, stamped ? protocol : RankProtocol.NONE, acks, sessions);
            half = local.task(receive.name()).write(object.local).priority(priority).submit(receive);
            cuts.submitted(globalIndex, half.seq());
        }
        if (half != null && recorder != null)
        {
            recorder.transfer(source == rank, source, target, object.local.tag(), object.version, globalIndex,
                half.seq());
        }
        object.received(target);
    }

    /** Copies the payload of a transfer logged at its send into a local object of its own. */
    private void capture(final Placement object, final int target, final int priority, final long globalIndex)
    {
        final Data from = object.local;
        final String tag = RankProtocol.logTag(from.tag(), object.version, target);
        final Data log = local.data(tag, from.size());
        final TaskHandle copy = local.task("log '" + from.tag() + "' v" + object.version + " for rank " + target)
            .read(from).write(log).priority(priority).submit(ctx -> ctx.buffer(log).put(0, ctx.buffer(from), 0,
                from.size()));
        cuts.submitted(globalIndex, copy.seq());
    }

    /**
     * Told, under the submission lock and in submission order, of every task this runtime submits to its local
     * runtime and of every cut it requests there. A cut requested after local task {@code s} has the local frontier
     * {@code s + 1}. It must be quick: submission waits for it.
     */
    public interface Recorder
    {
        /** A task that runs here, the task at {@code globalIndex}; {@code seq} is its {@link TaskHandle#seq()}. */
        void task(long globalIndex, long seq);

        /** This rank's half of moving {@code version} of {@code object} for the task at {@code globalIndex}. */
        void transfer(boolean send, int source, int target, String object, int version, long globalIndex, long seq);

        /** A cut requested at {@code globalIndex}, before local task {@code frontier} (submitted or the next). */
        void cut(long globalIndex, long frontier);

        /** The message-logging protocol: this rank posted its send of {@code version} of {@code object}. */
        default void posted(final int target, final String object, final int version)
        {
        }

        /** The message-logging protocol: this rank committed its generation of the cut at {@code globalIndex}. */
        default void committed(final long globalIndex)
        {
        }

        /** The message-logging protocol: this rank gave its recovery report for {@code session}. */
        default void reported(final long session)
        {
        }
    }
}
