package dev.spillway.ranks;

import dev.spillway.checkpoint.Cut;
import dev.spillway.rdma.Header;
import dev.spillway.rdma.PeerEvent;
import dev.spillway.rdma.PeerListener;
import dev.spillway.rdma.Transport;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import static java.lang.System.Logger.Level.DEBUG;

/**
 * Recovery sessions of a message-logging protocol (spec §A.4.3 steps 3–5), coordinated by rank 0. When rank 0 sees a
 * rank lost, it opens a session: every rank that runs on holds its sends ({@link PeerSessions#hold}) and reports
 * what the recovery line needs ({@link RankProtocol#recoveryReport}); rank 0 computes the line
 * ({@link RankProtocol#recoveryLine}) from the reports and the cut each lost rank restores, and sends it to all. A
 * rank the line names rolls back: it records the cut to restore and stops, to be relaunched alone. The others treat
 * the named ranks as lost until they rejoin and greet, and send on. A new loss during a session starts a new one; the
 * loss of a rank that stops because a line named it starts none. Rank 0's own loss is the job's global restart.
 */
final class RecoverySessions implements PeerListener
{
    static final int RECOVERY_TAG = DistributedSpillway.FIRST_DATA_TAG - 10;
    private static final System.Logger LOG = System.getLogger(RecoverySessions.class.getName());
    private static final int OPEN = 1;
    private static final int REPORT = 2;
    private static final int LINE = 3;
    private static final int COVER = 4;
    private static final int MAX_MESSAGE = 1 << 20;

    /** What a rank the line names does: records the cut it restores (global index, or {@code Cut.LOCAL}) and stops. */
    interface RollBack
    {
        void to(long cut, String why);
    }

    private final Transport transport;
    private final RankProtocol protocol;
    private final PeerSessions sessions;
    private final GlobalCheckpoints checkpoints;
    private final RollBack rollBack;
    private final BooleanSupplier stopped;
    private final Consumer<String> failed;
    private final ExecutorService coordinator;
    private final int rank;

    // Rank 0's session, on the coordinator thread.
    private long session;
    private boolean open;
    private long openedNanos;
    private final Map<Integer, Long> restoring = new TreeMap<>();
    /** The incarnation each restoring rank had when the session opened: the one lost, or the one a line stopped. */
    private final Map<Integer, Integer> lostIncarnations = new HashMap<>();
    private final Map<Integer, byte[]> reports = new HashMap<>();
    private final TreeSet<Integer> participants = new TreeSet<>();
    /** Ranks a line sent back, until their next incarnation rejoins: the incarnation that stops and the cut. */
    private final Map<Integer, long[]> rollingBack = new HashMap<>();
    /** Rank 0: a session is open or a rank it sent back has not rejoined yet. */
    private volatile boolean holding;
    private final List<RecoveryOutcome> outcomes = new ArrayList<>();
    /**
     * Per rank, the newest incarnation whose loss (or roll-back) a line this rank applied covered. Rank 0 sends it to
     * each rank that rejoins, which may see those losses only after it started.
     */
    private final int[] covered;
    // Other ranks, under covered's lock: the newest session rank 0 opened with this rank and the newest line applied,
    // and the losses seen that no line covered yet. Sends stand still while either is outstanding.
    private long latestOpen = -1;
    private long latestLine = -1;
    private final Map<Integer, Integer> uncovered = new HashMap<>();

    /**
     * @param checkpoints the job's global checkpoints: a lost rank restores the newest global cut.
     * @param rollBack    what a rank the line names does.
     * @param failed      told why the job must restart whole: recovery cannot go on, or the line names rank 0.
     */
    RecoverySessions(final Transport transport, final RankProtocol protocol, final PeerSessions sessions,
        final GlobalCheckpoints checkpoints, final RollBack rollBack, final BooleanSupplier stopped,
        final Consumer<String> failed)
    {
        this.transport = transport;
        this.rank = transport.rank();
        this.protocol = protocol;
        this.sessions = sessions;
        this.checkpoints = checkpoints;
        this.rollBack = rollBack;
        this.stopped = stopped;
        this.failed = failed;
        this.covered = new int[transport.size()];
        Arrays.fill(covered, -1);
        this.coordinator = Executors.newSingleThreadExecutor(RankThreads.named(transport.rank(), "recovery"));
    }

    /** Starts listening: rank 0 to every rank's reports, the others to rank 0. */
    void start()
    {
        if (rank == DistributedSpillway.ROOT)
        {
            for (int r = 0; r < transport.size(); r++)
            {
                if (r != rank)
                {
                    listen(r);
                }
            }
            transport.addPeerListener(this);
            checkpoints.holdRecordingWhile(this::recovering);
            coordinator.execute(this::openIfLost);
        }
        else
        {
            listen(DistributedSpillway.ROOT);
            transport.addPeerListener(this);
        }
    }

    void close()
    {
        transport.removePeerListener(this);
        coordinator.shutdownNow();
    }

    /** @return the sessions rank 0 ran so far. */
    synchronized List<RecoveryOutcome> outcomes()
    {
        return List.copyOf(outcomes);
    }

    @Override
    public void onPeerEvent(final PeerEvent event)
    {
        if (rank != DistributedSpillway.ROOT)
        {
            // Sends and hellos stand still from the loss on, until a line that covers it: it may roll this rank back.
            synchronized (covered)
            {
                if (event.kind() == PeerEvent.Kind.LOST && event.rank() != DistributedSpillway.ROOT &&
                    covered[event.rank()] < event.incarnation())
                {
                    uncovered.merge(event.rank(), event.incarnation(), Math::max);
                    sessions.hold("rank 0's recovery line (rank " + event.rank() + " was lost)");
                }
            }
            return;
        }
        onCoordinator(() ->
        {
            final long[] back = rollingBack.get(event.rank());
            if (event.kind() == PeerEvent.Kind.REJOINED)
            {
                if (back != null && event.incarnation() > back[0])
                {
                    rollingBack.remove(event.rank());
                    updateHolding();
                }
                checkpoints.recordingMayResume();
                final ByteBuffer b = ByteBuffer.allocate(12 + 4 * covered.length).putInt(COVER).putLong(session);
                synchronized (covered)
                {
                    for (final int incarnation : covered)
                    {
                        b.putInt(incarnation);
                    }
                }
                send(event.rank(), b.array());
                return;
            }
            if (back != null && event.incarnation() == back[0])
            {
                LOG.log(DEBUG, "spillway: rank " + event.rank() + " stopped to roll back, as the recovery line said");
                return;
            }
            // It restores at most the newest global cut: what its lost incarnation committed above never counts.
            checkpoints.sentBack(event.rank(), event.incarnation(), checkpoints.globallyCommitted());
            openSession();
        });
    }

    /**
     * Rank 0, any thread: whether a recovery is under way, from a loss until every rank it sends back has rejoined.
     * The global record stands still meanwhile ({@link GlobalCheckpoints#holdRecordingWhile}).
     */
    private boolean recovering()
    {
        if (holding)
        {
            return true;
        }
        for (int r = 0; r < transport.size(); r++)
        {
            if (r != rank && transport.lostReason(r) != null)
            {
                return true;
            }
        }
        return false;
    }

    /** Rank 0, coordinator thread: after {@code open} or {@code rollingBack} changed. */
    private void updateHolding()
    {
        holding = open || !rollingBack.isEmpty();
        if (!holding)
        {
            checkpoints.recordingMayResume();
        }
    }

    /** Rank 0 at its start: a rank lost before it listened. */
    private void openIfLost()
    {
        for (int r = 0; r < transport.size(); r++)
        {
            if (r != rank && transport.lostReason(r) != null)
            {
                openSession();
                return;
            }
        }
    }

    /** Rank 0, coordinator thread: a new session with every rank lost or rolling back, and reports from the rest. */
    private void openSession()
    {
        if (stopped.getAsBoolean())
        {
            return;
        }
        session++;
        open = true;
        updateHolding();
        openedNanos = System.nanoTime();
        restoring.clear();
        lostIncarnations.clear();
        reports.clear();
        participants.clear();
        final long newestGlobal = checkpoints.globallyCommitted();
        for (int r = 0; r < transport.size(); r++)
        {
            final long[] back = rollingBack.get(r);
            if (back != null)
            {
                restoring.put(r, back[1]);
                lostIncarnations.put(r, (int) back[0]);
            }
            else if (r != rank && transport.lostReason(r) != null)
            {
                restoring.put(r, newestGlobal);
                lostIncarnations.put(r, transport.incarnation(r));
            }
            else if (r != rank)
            {
                participants.add(r);
            }
        }
        System.err.println("spillway: rank 0: recovery session " + session + ": rank(s) " + restoring.keySet() +
            " restart from their checkpoints; asking rank(s) " + participants + " for their dependencies");
        sessions.hold(holdReason(session));
        reports.put(rank, reportHolding(session));
        for (final int r : participants)
        {
            send(r, ByteBuffer.allocate(12).putInt(OPEN).putLong(session).array());
        }
        decideIfComplete();
    }

    private static String holdReason(final long session)
    {
        return "the recovery line of session " + session + " from rank 0 (a rank was lost)";
    }

    /** This rank's report, taken while no send is being posted. */
    private byte[] reportHolding(final long id)
    {
        return reportUnderLocks(id, 0);
    }

    private byte[] reportUnderLocks(final long id, final int peer)
    {
        if (peer == transport.size())
        {
            return protocol.recoveryReport(id);
        }
        synchronized (sessions.posting(peer))
        {
            return reportUnderLocks(id, peer + 1);
        }
    }

    /** Rank 0, coordinator thread. */
    private void reported(final int from, final long id, final byte[] report)
    {
        if (!open || id != session || !participants.contains(from))
        {
            return;
        }
        reports.put(from, report);
        decideIfComplete();
    }

    private void decideIfComplete()
    {
        if (!open || reports.size() < participants.size() + 1)
        {
            return;
        }
        open = false;
        final long[] line;
        try
        {
            line = protocol.recoveryLine(restoring, reports);
        }
        catch (final RuntimeException e)
        {
            failed.accept("recovery session " + session + " found no recovery line (" + e.getMessage() + ")");
            return;
        }
        final Map<Integer, Long> back = new TreeMap<>();
        for (int r = 0; r < line.length; r++)
        {
            if (line[r] != RankProtocol.KEEPS_RUNNING)
            {
                back.put(r, line[r]);
                if (!restoring.containsKey(r))
                {
                    rollingBack.put(r, new long[] {transport.incarnation(r), line[r]});
                }
            }
        }
        // A restoring rank may have rejoined since the session opened: its new incarnation's commits count.
        back.forEach((r, cut) -> checkpoints.sentBack(r, lostIncarnations.containsKey(r) ? lostIncarnations.get(r) :
            rollingBack.containsKey(r) ? (int) rollingBack.get(r)[0] : transport.incarnation(r), cut));
        updateHolding();
        final double seconds = (System.nanoTime() - openedNanos) / 1e9;
        synchronized (this)
        {
            outcomes.add(new RecoveryOutcome(session, List.copyOf(restoring.keySet()), back, seconds));
        }
        System.err.println("spillway: rank 0: recovery session " + session + ": the recovery line rolls back " +
            describe(back) + (back.containsKey(rank) ? "; rank 0 among them: the job restarts whole" :
            "; the other ranks run on"));
        final int[] incarnations = new int[line.length];
        Arrays.fill(incarnations, -1);
        restoring.keySet().forEach(r -> incarnations[r] = transport.incarnation(r));
        rollingBack.forEach((r, stopping) -> incarnations[r] = (int) stopping[0]);
        final ByteBuffer b = ByteBuffer.allocate(12 + 12 * line.length).putInt(LINE).putLong(session);
        for (int r = 0; r < line.length; r++)
        {
            b.putLong(line[r]).putInt(incarnations[r]);
        }
        for (final int r : participants)
        {
            send(r, b.array());
        }
        apply(session, line, incarnations);
    }

    private static String describe(final Map<Integer, Long> back)
    {
        final StringBuilder s = new StringBuilder();
        back.forEach((r, cut) -> s.append(s.length() == 0 ? "" : ", ").append("rank ").append(r).append(" to ")
            .append(cut == Cut.LOCAL ? "its start" : "the cut at global index " + cut));
        return s.toString();
    }

    /** Any rank: the line of {@code id}, which covers the losses of {@code incarnations} (-1: none). */
    private void apply(final long id, final long[] line, final int[] incarnations)
    {
        if (line[DistributedSpillway.ROOT] != RankProtocol.KEEPS_RUNNING)
        {
            // Rank 0 hosts the rendezvous and the coordinator: the whole job restarts, every rank at once.
            failed.accept("the recovery line of session " + id + " rolls back rank 0, which hosts the rendezvous");
            return;
        }
        if (line[rank] != RankProtocol.KEEPS_RUNNING)
        {
            rollBack.to(line[rank], "the recovery line of session " + id + " rolls it back to " +
                (line[rank] == Cut.LOCAL ? "its start" : "the cut at global index " + line[rank]));
            return;
        }
        for (int r = 0; r < line.length; r++)
        {
            if (r != rank && line[r] != RankProtocol.KEEPS_RUNNING)
            {
                sessions.unready(r);
            }
        }
        synchronized (covered)
        {
            latestLine = Math.max(latestLine, id);
            cover(incarnations);
        }
    }

    /** Under covered's lock: the losses of {@code incarnations} are covered; sends go on once none is outstanding. */
    private void cover(final int[] incarnations)
    {
        for (int r = 0; r < incarnations.length; r++)
        {
            covered[r] = Math.max(covered[r], incarnations[r]);
            final Integer lost = uncovered.get(r);
            if (lost != null && lost <= covered[r])
            {
                uncovered.remove(r);
            }
        }
        if (rank == DistributedSpillway.ROOT || latestLine >= latestOpen && uncovered.isEmpty())
        {
            sessions.release();
        }
    }

    /** A rank other than 0: rank 0 opened session {@code id}. */
    private void opened(final long id)
    {
        synchronized (covered)
        {
            latestOpen = Math.max(latestOpen, id);
            sessions.hold(holdReason(id));
        }
        final byte[] report = reportHolding(id);
        send(DistributedSpillway.ROOT, ByteBuffer.allocate(16 + report.length).putInt(REPORT).putLong(id)
            .putInt(report.length).put(report).array());
    }

    private void send(final int peer, final byte[] bytes)
    {
        if (bytes.length > MAX_MESSAGE)
        {
            failed.accept("its recovery message of " + bytes.length + " bytes exceeds " + MAX_MESSAGE);
            return;
        }
        transport.send(peer, Header.of(RECOVERY_TAG), ByteBuffer.allocateDirect(bytes.length).put(bytes).flip())
            .whenComplete((ignored, failure) ->
            {
                if (failure != null)
                {
                    LOG.log(DEBUG, "spillway: recovery message to rank " + peer + " failed (its loss starts a new " +
                        "session): " + failure);
                }
            });
    }

    /** Runs {@code step} on the coordinator thread, unless this rank closed meanwhile (nothing waits for it then). */
    private void onCoordinator(final Runnable step)
    {
        try
        {
            coordinator.execute(step);
        }
        catch (final RejectedExecutionException closed)
        {
            LOG.log(DEBUG, "spillway: rank " + rank + " closed its recovery sessions before a step ran");
        }
    }

    /** Copies a message out of the receive buffer and handles it on the coordinator thread. */
    private void listen(final int peer)
    {
        StandingReceive.start(transport, sessions, peer, RECOVERY_TAG, ByteBuffer.allocateDirect(MAX_MESSAGE),
            stopped, Runnable::run, (m, buffer) ->
            {
                final byte[] bytes = new byte[m.length()];
                buffer.get(0, bytes);
                onCoordinator(() -> handle(peer, ByteBuffer.wrap(bytes)));
                return true;
            });
    }

    /** Coordinator thread. */
    private void handle(final int peer, final ByteBuffer b)
    {
        final int kind = b.getInt();
        final long id = b.getLong();
        switch (kind)
        {
            case OPEN -> opened(id);
            case REPORT ->
            {
                final byte[] report = new byte[b.getInt()];
                b.get(report);
                reported(peer, id, report);
            }
            case COVER ->
            {
                final int[] incarnations = new int[transport.size()];
                for (int r = 0; r < incarnations.length; r++)
                {
                    incarnations[r] = b.getInt();
                }
                synchronized (covered)
                {
                    cover(incarnations);
                }
            }
            case LINE ->
            {
                synchronized (covered)
                {
                    if (id < latestOpen)
                    {
                        return;
                    }
                }
                final long[] line = new long[transport.size()];
                final int[] incarnations = new int[line.length];
                for (int r = 0; r < line.length; r++)
                {
                    line[r] = b.getLong();
                    incarnations[r] = b.getInt();
                }
                apply(id, line, incarnations);
            }
            default -> failed.accept("rank " + peer + " sent a recovery message of unknown kind " + kind);
        }
    }
}
