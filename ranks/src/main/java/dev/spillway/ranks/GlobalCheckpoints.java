package dev.spillway.ranks;

import dev.spillway.checkpoint.CheckpointCost;
import dev.spillway.checkpoint.CheckpointPolicy;
import dev.spillway.checkpoint.Cut;
import dev.spillway.checkpoint.RestorePoint;
import dev.spillway.rdma.Collectives;
import dev.spillway.rdma.Transport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static java.lang.System.Logger.Level.DEBUG;
import static java.lang.System.Logger.Level.WARNING;

/**
 * Checkpoints of a distributed job that form one consistent global checkpoint per cut, with no marker messages.
 * Every rank cuts at the same global submission index: both halves of a transfer are submitted at one global index,
 * so every transfer lies on one side of such a cut on both its ranks (design note §C.2). The cut indices are
 * <ul>
 *   <li>every N global submissions ({@link #everyTasks}), known to every rank from the start; or</li>
 *   <li>agreed at run time ({@link #agreed}): when rank 0's policy says a checkpoint is due, rank 0 asks every rank
 *       how many tasks it has submitted; each holds its further submissions until rank 0 answers with the largest
 *       count, and all cut there (one round of messages, seed 003 §4.2.2's max-reduction).</li>
 * </ul>
 * Each rank commits its generation of a cut in its own checkpoint directory and tells rank 0 (with a
 * {@link CommitCopy}, once the copy is durable too); once every rank has,
 * rank 0 records the global commit ({@code global-commit} beside the ranks' directories) and tells the ranks. A rank
 * begins a cut only once its previous cut is globally committed, so its store, which keeps two generations, always
 * holds the job's newest global checkpoint. A relaunched job agrees on that record before any rank restores
 * ({@link #agreeOnRestore}). With copies at buddies, every other rank records each global commit it learns too
 * ({@link #recordCommitsOnEveryRank}), so that the job still knows its newest global checkpoint when rank 0's node,
 * record included, is lost.
 *
 * <p>It is the local runtimes' {@link CheckpointPolicy}: never due by itself, since {@link DistributedSpillway}
 * requests every cut. Use one instance per rank.
 */
public final class GlobalCheckpoints implements CheckpointPolicy
{
    /** The file, beside the ranks' directories, in which rank 0 records the newest global commit. */
    public static final String RECORD = "global-commit";
    /** Beside the record, with copies: {@code global-commit-rank-R} is the newest global commit rank R learned. */
    public static final String RANK_RECORD_PREFIX = "global-commit-rank-";
    /** Beside the record: {@code rolled-back-R} names the cut a recovery line sent rank R back to. */
    public static final String ROLL_BACK_PREFIX = "rolled-back-";
    private static final System.Logger LOG = System.getLogger(GlobalCheckpoints.class.getName());
    private static final long TICK_MS = 20;

    private final long every;
    private final CheckpointPolicy timing;
    private final Path root;
    private final long restoredIndex;
    private final long incarnation;
    private volatile long globallyCommitted;
    /** IO thread. */
    private long lastLocalCommitted;
    /** IO thread: the global cut this rank committed before {@link #lastLocalCommitted}. */
    private long localCommittedBefore;
    /** Set under {@link #stopLock}: the job completed or this rank closed. */
    private volatile boolean stopped;
    /** Held to stop, and on rank 0 to hand on or record a global commit: none is recorded once the job stopped. */
    private final Object stopLock = new Object();
    private volatile int globalCommits;
    private Transport transport;
    private DistributedSpillway runtime;
    private ScheduledExecutorService executor;
    /** Rank 0, on the executor: which ranks committed each index not yet global; null elsewhere. */
    private CommitLedger commits;
    /** Rank 0: whether a recovery holds the global record still. */
    private volatile BooleanSupplier recordingHeld = () -> false;
    /** Rank 0: what its record waits for, refreshed on the executor, for wait reports. */
    private volatile String recordWait = "";
    /** Rank 0: {@link #sentBack} calls not yet applied on the executor; the record waits for them. */
    private final AtomicInteger pendingSendBacks = new AtomicInteger();
    private GlobalCommitRecord record;
    private boolean recordsOnEveryRank;
    /** Another rank, with {@link #recordCommitsOnEveryRank}: its record of the global commits it learned, else null. */
    private GlobalCommitRecord learned;
    private CutMessages messages;
    private CutAgreement agreement;
    /** The message-logging protocol's state in the generation resumed from, until the runtime attaches. */
    private byte[] restoredSection;
    private RankProtocol protocol = RankProtocol.NONE;
    private CommitCopy copy;

    private GlobalCheckpoints(final long every, final CheckpointPolicy timing, final Path root,
        final long restoredIndex, final long incarnation)
    {
        this.every = every;
        this.timing = timing;
        this.root = root;
        this.restoredIndex = restoredIndex;
        this.incarnation = incarnation;
        this.globallyCommitted = restoredIndex;
        this.lastLocalCommitted = restoredIndex;
        this.localCommittedBefore = restoredIndex;
    }

    /**
     * Cuts at global submission indices {@code tasks, 2·tasks, …}.
     *
     * @param root          the job's checkpoint directory; rank 0 keeps its record there.
     * @param restoredIndex the global cut the job resumed from ({@link #agreeOnRestore}), or {@link Cut#LOCAL}.
     * @param incarnation   how many times the job was relaunched, for the record.
     */
    public static GlobalCheckpoints everyTasks(final long tasks, final Path root, final long restoredIndex,
        final long incarnation)
    {
        if (tasks < 1)
        {
            throw new IllegalArgumentException("a global checkpoint interval must be at least 1 task, got " + tasks);
        }
        return new GlobalCheckpoints(tasks, null, root, restoredIndex, incarnation);
    }

    /**
     * Cuts where the ranks agree, whenever {@code timing} (for instance every N seconds, or the automatic interval)
     * says a checkpoint is due on rank 0; it is told rank 0's measured costs.
     */
    public static GlobalCheckpoints agreed(final CheckpointPolicy timing, final Path root, final long restoredIndex,
        final long incarnation)
    {
        return new GlobalCheckpoints(0, timing, root, restoredIndex, incarnation);
    }

    /**
     * Every rank calls it after the rendezvous, before opening its checkpoint store: rank 0 reads the job's newest
     * global commit from {@code root}, every other rank the newest one it learned (recorded with copies only), and
     * all resume from the newest of them. Rank 0's record is the newest there is unless it was lost with rank 0's
     * node; a cut another rank recorded was committed by every rank, and copied to every buddy.
     *
     * @return the global index to restore ({@code FileCheckpointStore.Builder.globalCut}), or {@link Cut#LOCAL}
     *         when the job has no global checkpoint.
     * @throws UncheckedIOException on rank 0 when the record cannot be read (its peers then see rank 0 lost).
     */
    public static long agreeOnRestore(final Transport transport, final Path root)
    {
        return agreeOnRestore(transport, root, false);
    }

    /**
     * As {@link #agreeOnRestore(Transport, Path)}; with {@code everyRankRecords} (buddy copies,
     * {@link #recordCommitsOnEveryRank}) the other ranks' records count too, and without it a record an earlier run
     * left is removed.
     */
    public static long agreeOnRestore(final Transport transport, final Path root, final boolean everyRankRecords)
    {
        final int rank = transport.rank();
        long recorded = Cut.LOCAL;
        if (rank == DistributedSpillway.ROOT)
        {
            try
            {
                recorded = new GlobalCommitRecord(root.resolve(RECORD)).read(transport.size());
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException(e.getMessage(), e);
            }
        }
        else
        {
            final GlobalCommitRecord learned = new GlobalCommitRecord(rankRecord(root, rank));
            try
            {
                if (everyRankRecords)
                {
                    recorded = learned.read(transport.size());
                }
                else
                {
                    learned.delete();
                }
            }
            catch (final IOException e)
            {
                System.err.println("spillway: rank " + rank + " ignores its record of the global commits: " +
                    e.getMessage());
            }
        }
        final byte[][] all = Collectives.allGather(transport, CutMessages.RESTORE_TAG,
            ByteBuffer.allocate(CutMessages.WORD).putLong(recorded).array(), CutMessages.WORD);
        long newest = Cut.LOCAL;
        int by = DistributedSpillway.ROOT;
        for (int r = 0; r < all.length; r++)
        {
            final long cut = ByteBuffer.wrap(all[r]).getLong();
            if (cut > newest)
            {
                newest = cut;
                by = r;
            }
        }
        if (rank == DistributedSpillway.ROOT && by != DistributedSpillway.ROOT)
        {
            System.err.println("spillway: rank 0 " + (recorded == Cut.LOCAL ? "has no record of the job's global " +
                "commits (" + root.resolve(RECORD) + ": lost with its node?)" : "recorded the global cut at index " +
                recorded) + "; rank " + by + " recorded the global cut at index " + newest + ", the newest any rank " +
                "recorded: the job resumes from it");
        }
        return newest;
    }

    /** @return where rank {@code rank} records the global commits it learns, beside rank 0's record. */
    public static Path rankRecord(final Path root, final int rank)
    {
        return root.resolve(RANK_RECORD_PREFIX + rank);
    }

    /**
     * As {@link #agreeOnRestore(Transport, Path)}, where rank 0 found the cut elsewhere (a replicated job: its
     * replicas' records).
     *
     * @param rootsCut on rank 0, the cut to resume from, or {@link Cut#LOCAL}; ignored elsewhere.
     * @return rank 0's {@code rootsCut}.
     */
    public static long agreeOnRestore(final Transport transport, final long rootsCut)
    {
        final byte[] mine = transport.rank() == DistributedSpillway.ROOT ?
            ByteBuffer.allocate(CutMessages.WORD).putLong(rootsCut).array() : new byte[0];
        final byte[][] all = Collectives.allGather(transport, CutMessages.RESTORE_TAG, mine, CutMessages.WORD);
        return ByteBuffer.wrap(all[DistributedSpillway.ROOT]).getLong();
    }

    /**
     * For a rank started again alone while the others run (past-to-future logging): the job's newest global commit,
     * read from rank 0's record without a collective.
     *
     * @return the global index to restore, or {@link Cut#LOCAL} when there is none.
     */
    public static long recordedCut(final Path root, final int ranks) throws IOException
    {
        return new GlobalCommitRecord(root.resolve(RECORD)).read(ranks);
    }

    /**
     * For a rank started again alone while the others run (past-to-future logging): the cut a recovery line sent
     * this rank back to, if it stopped for that (the record is then consumed), else the job's newest global commit.
     *
     * @return the global index to restore, or {@link Cut#LOCAL} for the start.
     */
    public static long rejoinCut(final Path root, final int rank, final int ranks) throws IOException
    {
        final Path rollBack = rollBackRecord(root, rank);
        if (!Files.exists(rollBack))
        {
            return recordedCut(root, ranks);
        }
        final String text = Files.readString(rollBack, StandardCharsets.US_ASCII).trim();
        final long cut;
        try
        {
            cut = Long.parseLong(text);
        }
        catch (final NumberFormatException e)
        {
            throw new IOException(rollBack + " is not a cut's global index: '" + text + "'", e);
        }
        Files.delete(rollBack);
        return cut;
    }

    /**
     * For a rank of a job started whole: a cut a recovery line named before the job restarted whole no longer applies.
     */
    public static void forgetRollBack(final Path root, final int rank) throws IOException
    {
        Files.deleteIfExists(rollBackRecord(root, rank));
    }

    private static Path rollBackRecord(final Path root, final int rank)
    {
        return root.resolve(ROLL_BACK_PREFIX + rank);
    }

    /** Records, before this rank stops, the cut a recovery line sends it back to, for its next incarnation. */
    void rollBackTo(final long cut) throws IOException
    {
        final Path target = rollBackRecord(root, transport.rank());
        final Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        Files.writeString(tmp, cut + "\n", StandardCharsets.US_ASCII);
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** @return the global cut this job resumed from, or {@link Cut#LOCAL}. */
    public long restoredIndex()
    {
        return restoredIndex;
    }

    /** @return the newest global cut this rank knows committed on every rank, or {@link Cut#LOCAL}. */
    public long globallyCommitted()
    {
        return globallyCommitted;
    }

    /** @return global commits recorded by this run (counted on rank 0, and on each rank as it learns of them). */
    public int globalCommits()
    {
        return globalCommits;
    }

    /** @throws IllegalStateException if a runtime uses it already: checked before a second one builds anything. */
    void checkUnattached()
    {
        if (transport != null)
        {
            throw new IllegalStateException("a GlobalCheckpoints serves one DistributedSpillway; make one per rank");
        }
    }

    /**
     * Gives {@code protocol} the state it kept in the generation the runtime resumed from, if any; called once the
     * runtime's store is open, before anything is submitted.
     */
    void handOver(final RankProtocol protocol)
    {
        this.protocol = protocol;
        if (restoredSection != null)
        {
            protocol.restored(restoredSection);
            restoredSection = null;
        }
    }

    /** Starts the message handling; called by the runtime that uses it. */
    void attach(final Transport transport, final DistributedSpillway runtime)
    {
        checkUnattached();
        this.transport = transport;
        this.runtime = runtime;
        executor = Executors.newSingleThreadScheduledExecutor(RankThreads.named(transport.rank(), "cuts"));
        messages = new CutMessages(transport, executor, () -> stopped, why -> runtime.restartNeeded(why, -1));
        if (runtime.sessions() != null)
        {
            messages.outliveLosses(runtime.sessions());
        }
        final int coordinator = DistributedSpillway.ROOT;
        if (transport.rank() == coordinator)
        {
            record = new GlobalCommitRecord(root.resolve(RECORD));
            commits = new CommitLedger(transport.size());
            agreement = timing == null ? null : new CutAgreement(timing, messages, runtime, () -> globallyCommitted,
                restoredIndex);
            for (int r = 1; r < transport.size(); r++)
            {
                final int rank = r;
                messages.listen(r, CutMessages.COMMITTED_TAG,
                    (CutMessages.StampedHandler) (incarnation, index) -> onCommitted(rank, incarnation, index));
                if (agreement != null)
                {
                    messages.listen(r, CutMessages.COUNT_TAG, agreement::onCount);
                }
            }
            if (agreement != null)
            {
                executor.scheduleWithFixedDelay(() ->
                {
                    if (!stopped)
                    {
                        messages.guarded("proposing a cut", agreement::maybePropose);
                    }
                }, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
            }
        }
        else
        {
            if (recordsOnEveryRank)
            {
                learned = new GlobalCommitRecord(rankRecord(root, transport.rank()));
                rewriteLearned();
            }
            messages.listen(coordinator, CutMessages.GLOBAL_TAG, this::onGlobalCommit);
            messages.listen(coordinator, CutMessages.PROPOSE_TAG, ignored -> messages.send(coordinator,
                CutMessages.COUNT_TAG, runtime.holdForCut()));
            messages.listen(coordinator, CutMessages.DECIDE_TAG, runtime::cutAt);
        }
    }

    /** @return the first global index to cut at, or {@link Long#MAX_VALUE} while the ranks have not agreed one. */
    long firstCut()
    {
        return every == 0 ? Long.MAX_VALUE : every;
    }

    /** @return the global index of the cut after the one at {@code index}, or {@link Long#MAX_VALUE} (agreed). */
    long cutAfter(final long index)
    {
        return every == 0 ? Long.MAX_VALUE : index + every;
    }

    /**
     * The job completed: rank 0 removes the record, between two barriers, before any rank marks its run complete; no
     * later global commit is recorded. Where every rank records, the others remove theirs first, behind a barrier of
     * their own, so that a record left by a rank that failed meanwhile is never newer than rank 0's.
     */
    void finish()
    {
        runtime.barrier();
        stop();
        if (learned != null)
        {
            delete(learned);
        }
        if (recordsOnEveryRank)
        {
            runtime.barrier();
        }
        if (record != null)
        {
            delete(record);
        }
        runtime.barrier();
    }

    private static void delete(final GlobalCommitRecord record)
    {
        try
        {
            record.delete();
        }
        catch (final IOException e)
        {
            LOG.log(WARNING, "spillway: cannot remove " + record.file() + ": " + e.getMessage() +
                "; a later run in this directory would resume from it");
        }
    }

    /**
     * Makes every committed generation count towards a global commit only once {@code copy} says it is durable
     * elsewhere too (a buddy's copy). A rank may then begin a cut while the copy of the one before is in flight, once
     * the cut before that is globally committed: its store and the copy must keep three generations. Call before the
     * runtime opens; its close closes {@code copy}.
     */
    public void copyCommitsTo(final CommitCopy copy)
    {
        checkUnattached();
        this.copy = copy;
    }

    /**
     * Makes every rank record each global commit it learns ({@code global-commit-rank-R}, beside rank 0's record), as
     * buddy copies need: a job that lost rank 0's node, record included, resumes from the newest cut a surviving rank
     * recorded ({@link #agreeOnRestore(Transport, Path, boolean)}). The same on every rank; call before the runtime
     * opens.
     */
    public void recordCommitsOnEveryRank()
    {
        checkUnattached();
        recordsOnEveryRank = true;
    }

    /** @return seconds this rank spent fetching its checkpoint from a copy before its store opened, or 0. */
    public double fetchSeconds()
    {
        return copy == null ? 0 : copy.fetchSeconds();
    }

    /** No more messages are handled. */
    void close()
    {
        stop();
        if (copy != null)
        {
            copy.close();
        }
        if (executor != null)
        {
            executor.shutdownNow();
        }
    }

    /** Records no further global commit; returns once one being recorded is. */
    private void stop()
    {
        synchronized (stopLock)
        {
            stopped = true;
        }
    }

    /** Agreed cuts lie at the ranks' admission fronts, behind their submission fronts. */
    @Override
    public boolean cutsBehindSubmission()
    {
        return timing != null;
    }

    @Override
    public boolean due(final long tasksSinceCut, final long nanosSinceCut)
    {
        return false;
    }

    @Override
    public boolean mayBegin(final long globalIndex)
    {
        return globallyCommitted >= awaited();
    }

    /** @return the newest of this rank's committed cuts that must be globally committed before it begins a cut. */
    private long awaited()
    {
        return copy == null ? lastLocalCommitted : localCommittedBefore;
    }

    @Override
    public String beginWait(final long globalIndex)
    {
        return "rank 0 to record the global commit of the cut at index " + awaited() + ", which this rank " +
            "committed (the newest global commit it knows of is the cut at " + globallyCommitted + ")" +
            (copy == null ? "" : "; its copy: " + copy.state()) +
            (commits == null ? "" : "; rank 0's record: " + recordWait);
    }

    @Override
    public boolean mayCommit(final Cut cut)
    {
        return !cut.global() || protocol.mayCommit(cut.globalIndex());
    }

    @Override
    public String commitWait(final Cut cut)
    {
        return protocol.commitWait(cut.globalIndex());
    }

    @Override
    public Map<String, byte[]> sections(final Cut cut)
    {
        final byte[] section = cut.global() ? protocol.section(cut.globalIndex()) : null;
        return section == null ? Map.of() : Map.of(RankProtocol.SECTION, section);
    }

    @Override
    public boolean mayRelease(final Cut cut)
    {
        final CommitCopy copy = this.copy;
        return copy == null || !cut.global() || copy.mayRelease(cut);
    }

    @Override
    public String releaseWait(final Cut cut)
    {
        final CommitCopy copy = this.copy;
        return copy == null ? "nothing" : copy.state();
    }

    @Override
    public Map<String, ByteBuffer> mends(final Cut cut)
    {
        final CommitCopy copy = this.copy;
        return copy == null || !cut.global() ? Map.of() : copy.mends(cut);
    }

    @Override
    public void mended(final Cut cut, final String failure)
    {
        final CommitCopy copy = this.copy;
        if (copy != null)
        {
            copy.mended(cut, failure);
        }
    }

    /** Keeps the protocol's section, if the generation has one, for the runtime this policy serves. */
    @Override
    public void restored(final RestorePoint point)
    {
        final RestorePoint.Block block = point.blocks().get(RankProtocol.SECTION);
        if (block == null)
        {
            return;
        }
        final int page = 4096;
        final ByteBuffer buffer = ByteBuffer.allocateDirect((block.length() + page - 1) / page * page + 2 * page)
            .alignedSlice(page);
        try
        {
            final int length = point.read(RankProtocol.SECTION, buffer);
            final byte[] section = new byte[length];
            buffer.get(0, section);
            restoredSection = section;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot read the message-logging protocol's state from checkpoint " +
                "generation " + point.cut().generation() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void committed(final CheckpointCost cost)
    {
        if (timing != null)
        {
            timing.committed(cost);
        }
    }

    @Override
    public void cutCommitted(final Cut cut)
    {
        if (!cut.global())
        {
            return;
        }
        localCommittedBefore = lastLocalCommitted;
        lastLocalCommitted = cut.globalIndex();
        protocol.cutCommitted(cut.globalIndex());
        final CommitCopy copy = this.copy;
        if (copy == null)
        {
            tellCommitted(cut);
            return;
        }
        copy.copy(cut, () -> tellCommitted(cut), why ->
        {
            if (!stopped)
            {
                runtime.restartNeeded("rank " + transport.rank() + "'s checkpoint of the global cut at index " +
                    cut.globalIndex() + " cannot count: " + why, -1);
            }
        });
    }

    /** Tells rank 0 that this rank's generation of {@code cut} is durable where it must be. Any thread. */
    private void tellCommitted(final Cut cut)
    {
        if (transport.rank() == DistributedSpillway.ROOT)
        {
            // A generation may commit while the runtime closes, after the executor was shut down. Neither the IO
            // thread nor a copy's thread takes stopLock, which the executor holds while it syncs the record.
            try
            {
                final long index = cut.globalIndex();
                executor.execute(() -> onCommitted(DistributedSpillway.ROOT, transport.incarnation(), index));
            }
            catch (final RejectedExecutionException closed)
            {
                LOG.log(DEBUG, "spillway: the cut at global index " + cut.globalIndex() + " committed after close");
            }
        }
        else
        {
            messages.send(DistributedSpillway.ROOT, CutMessages.COMMITTED_TAG, cut.globalIndex());
        }
    }

    @Override
    public void cutAbandoned(final Cut cut, final String why)
    {
        // Once the job completed (finish()), closing the runtime may interrupt a last commit: nothing needs it.
        if (cut.global() && !stopped)
        {
            runtime.restartNeeded("rank " + transport.rank() + " could not write its checkpoint of the global cut at " +
                "index " + cut.globalIndex() + " (" + why + ")", -1);
        }
    }

    @Override
    public String describe()
    {
        return (every > 0 ? "every " + every + " tasks" : timing.describe() + ", agreed by rank 0") +
            ", the same cut on every rank";
    }

    /**
     * Rank 0: while {@code held} says so (a recovery is under way), the global record stands still; commit notices
     * are kept. A lost rank restores the global cut of the session's start, and the recovery line sends ranks back
     * to cuts at or above it: recording a newer one meanwhile would let the survivors collect what they restore. The
     * recovery calls {@link #recordingMayResume} when the hold may have ended.
     */
    void holdRecordingWhile(final BooleanSupplier held)
    {
        recordingHeld = held;
    }

    /**
     * Rank 0, any thread: records the newest cut every rank committed meanwhile, unless still held. Called after the
     * {@link #sentBack} calls of a recovery line.
     */
    void recordingMayResume()
    {
        onExecutor("the record resumed", this::recordNewestComplete);
    }

    /**
     * Rank 0: a recovery line sends {@code rank} back to the cut at {@code index}, so the commits of its incarnations
     * up to {@code incarnation} above that cut no longer count; its next incarnation commits those cuts again.
     */
    void sentBack(final int rank, final int incarnation, final long index)
    {
        // Counted before the caller can end the hold, so a record taken meanwhile waits for it.
        pendingSendBacks.incrementAndGet();
        onExecutor("rank " + rank + " sent back", () ->
        {
            commits.sentBack(rank, incarnation, index);
            pendingSendBacks.decrementAndGet();
        });
    }

    private void onExecutor(final String what, final Runnable step)
    {
        try
        {
            executor.execute(step);
        }
        catch (final RejectedExecutionException closed)
        {
            LOG.log(DEBUG, "spillway: rank 0 closed before it handled: " + what);
        }
    }

    /** Rank 0, executor: {@code rank}, in {@code incarnation}, committed its cut at {@code index}. */
    private void onCommitted(final int rank, final int incarnation, final long index)
    {
        if (index <= globallyCommitted)
        {
            return;
        }
        if (rank != DistributedSpillway.ROOT && transport.lostReason(rank) != null ||
            !commits.committed(rank, incarnation, index))
        {
            recordWait = commits.describe() + "; it ignored the notice of rank " + rank + "'s incarnation " +
                incarnation + " for the cut at " + index + " (lost, or sent back by a recovery line)";
            LOG.log(DEBUG, "spillway: rank 0 ignores the commit of the cut at global index " + index + " by rank " +
                rank + "'s incarnation " + incarnation + ", lost or sent back by a recovery");
            return;
        }
        recordNewestComplete();
    }

    /** Rank 0, executor: records the newest cut every rank committed, unless a recovery holds the record. */
    private void recordNewestComplete()
    {
        if (recordingHeld.getAsBoolean() || pendingSendBacks.get() > 0)
        {
            recordWait = "held by a recovery until every rank it sends back rejoined; " + commits.describe();
            return;
        }
        final long index = commits.takeNewestComplete();
        recordWait = commits.describe();
        if (index <= globallyCommitted)
        {
            return;
        }
        if (!record(record, index))
        {
            return;
        }
        if (agreement != null)
        {
            agreement.globalCommitted();
        }
        globalCommitted(index);
        messages.sendToOthers(CutMessages.GLOBAL_TAG, index);
    }

    private void globalCommitted(final long index)
    {
        if (index > globallyCommitted)
        {
            // Before the next cut may begin (mayBegin): its generation then never keeps what this drops.
            protocol.globallyCommitted(index);
            globallyCommitted = index;
            globalCommits++;
            if (copy != null)
            {
                copy.globallyCommitted(index);
            }
        }
    }

    /** Another rank, executor: rank 0 recorded the global commit of the cut at {@code index}. */
    private void onGlobalCommit(final long index)
    {
        // Before the copy may drop anything older: a job whose rank 0 lost its record resumes from this one.
        if (learned != null && index > globallyCommitted && !record(learned, index))
        {
            return;
        }
        globalCommitted(index);
    }

    /**
     * Writes {@code index} to {@code r}, not after finish() removed the record of a completed job, nor interrupted by
     * close().
     *
     * @return false when the protocol stopped, or when the record could not be written (the job then restarts).
     */
    private boolean record(final GlobalCommitRecord r, final long index)
    {
        synchronized (stopLock)
        {
            if (stopped)
            {
                return false;
            }
            try
            {
                r.write(index, transport.size(), incarnation);
                return true;
            }
            catch (final IOException e)
            {
                runtime.restartNeeded("rank " + transport.rank() + " could not record the global commit of the cut " +
                    "at index " + index + " in " + r.file() + ": " + e.getMessage(), -1);
                return false;
            }
        }
    }

    /** Another rank that records, as it starts: its record names the cut the job resumed from, or none. */
    private void rewriteLearned()
    {
        try
        {
            if (restoredIndex == Cut.LOCAL)
            {
                learned.delete();
            }
            else
            {
                learned.write(restoredIndex, transport.size(), incarnation);
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("rank " + transport.rank() + " could not record the global cut it " +
                "resumes from in " + learned.file() + ": " + e.getMessage(), e);
        }
    }
}
