package dev.spillway.resilience.p2f;

import dev.spillway.resilience.p2f.Workload.Kind;
import dev.spillway.resilience.p2f.Workload.Op;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A deterministic simulator of the past-to-future protocol (spec §A.9): ranks run a {@link Workload}'s program over
 * reliable FIFO channels, a seeded scheduler picks the next event (an operation, an ack, a duplicate dropped, a
 * checkpoint, a commit, a replay), and fail-stop failures are injected at seeded points. As in seed 001 a reception
 * is an event of the program (a receive operation), as a Spillway receive's epoch is fixed by its place in the
 * task order. Acks already sent when a rank fails still arrive; transfers from a dead incarnation are dropped, and
 * so is everything addressed to one. A reliable coordinator, outside the ranks, runs the recovery sessions: it
 * blocks every rank, waits for acks in flight, computes the recovery line, rolls ranks back, registers orphans and
 * releases replays and sends by the phase watermark. Checkpoints are taken at positions fixed by the workload, also
 * during a recovery, so a re-execution reaches the epochs and phases of the first execution.
 *
 * <p>Next to the protocol the simulator keeps its own record of what happened (sends with their epochs, acks,
 * receptions with theirs, deliveries), restored with each rank's image; the oracles check the protocol against that
 * record, never against the protocol's own tables.
 */
final class Simulation
{
    /** Which assertions run; a mutation control disables the one that would catch it first. */
    enum Oracle
    {
        OUTPUT, EXACTLY_ONCE, EPOCHS, RECOVERY_LINE, NO_DOMINO, LOG_REPLAYS, MINIMAL_LOGGING, CAUSAL_DELIVERY,
        LIVENESS, ORPHAN_COUNT
    }

    /** When a seeded failure fires. */
    enum Trigger
    {
        ANY, IN_RECOVERY, CHECKPOINT_IN_FLIGHT, AWAITING_ACK
    }

    record Failure(long atStep, int victim, Trigger trigger)
    {
    }

    /** One run's parameters. */
    record Schedule(Workload workload, long seed, List<Failure> failures, P2fOptions options, Set<Mutation> mutations,
        boolean aggressiveGc, Set<Oracle> oracles)
    {
        Schedule
        {
            failures = failures.stream().sorted((a, b) -> Long.compare(a.atStep(), b.atStep())).toList();
        }
    }

    /** What a run found: broken oracles, with statistics. */
    record Outcome(Schedule schedule, List<String> violations, Map<String, Long> stats)
    {
        boolean passed()
        {
            return violations.isEmpty();
        }

        @Override
        public String toString()
        {
            return schedule.workload() + " seed " + schedule.seed() + " failures " + schedule.failures() + " "
                + (passed() ? "passed" : "FAILED: " + violations) + " " + stats;
        }
    }

    private enum Path
    {
        ORIGINAL, REEXECUTED, LOG, NON_ACK
    }

    /** A transfer in a channel; {@code clock} is the sender's matrix clock (test-only): transfers s→d in its past. */
    private record Envelope(int source, int target, Stamp stamp, Long payload, Path path, long[] clock)
    {
    }

    private record Ack(int receiver, int sender, long ssn, int epoch)
    {
    }

    /** What a sender keeps of a transfer: its payload and its matrix clock. */
    private record Content(long value, long[] clock)
    {
    }

    /** A delivery to the program: the channel, the ssn and the payload. */
    record Delivery(int source, long ssn, long payload)
    {
    }

    private record Received(int source, long ssn, int epoch)
    {
    }

    /** What a rank's checkpoint holds besides the protocol: the program's state and the simulator's record. */
    private static final class Image
    {
        int pc;
        long app;
        List<Delivery> history;
        List<Received> receptions;
        Map<Long, Integer> sendEpochs;
        Set<Long> acked;
        long[] sent;
        long[] clock;
        int cuts;
        ProtocolSection<Content> section;
    }

    private final class Rank
    {
        final int id;
        final List<Op> program;
        int pc;
        long app;
        List<Delivery> history = new ArrayList<>();
        List<Received> receptions = new ArrayList<>();
        Map<Long, Integer> sendEpochs = new HashMap<>();
        Set<Long> acked = new HashSet<>();
        long[] sent;
        long[] clock;
        /** Checkpoints taken in this rank's surviving history: its epoch is its initial epoch plus these. */
        int cuts;
        PastToFuture<Content> protocol;
        final NavigableMap<Integer, Image> generations = new TreeMap<>();
        final ArrayDeque<EpochCut> inFlight = new ArrayDeque<>();
        final ArrayDeque<Image> inFlightImages = new ArrayDeque<>();
        int decidedPc = -1;
        boolean cutWanted;
        final List<ArrayDeque<Replay<Content>>> replays = new ArrayList<>();

        Rank(final int id)
        {
            this.id = id;
            this.program = workload.programs().get(id);
            this.sent = new long[ranks.length];
            this.clock = new long[ranks.length * ranks.length];
            this.protocol = new PastToFuture<>(id, ranks.length, workload.initialEpochs()[id], schedule.options(),
                schedule.mutations());
            for (int r = 0; r < ranks.length; r++)
            {
                replays.add(new ArrayDeque<>());
            }
            generations.put(workload.initialEpochs()[id], image());
        }

        Image image()
        {
            final Image image = new Image();
            image.pc = pc;
            image.app = app;
            image.history = new ArrayList<>(history);
            image.receptions = new ArrayList<>(receptions);
            image.sendEpochs = new HashMap<>(sendEpochs);
            image.acked = new HashSet<>(acked);
            image.sent = sent.clone();
            image.clock = clock.clone();
            image.cuts = cuts;
            return image;
        }

        void restore(final int epoch)
        {
            final Image image = generations.get(epoch);
            if (image == null)
            {
                throw new IllegalStateException("generation for epoch " + epoch + " of rank " + id + " not found (kept: "
                    + generations.keySet() + ")");
            }
            pc = image.pc;
            app = image.app;
            history = new ArrayList<>(image.history);
            receptions = new ArrayList<>(image.receptions);
            sendEpochs = new HashMap<>(image.sendEpochs);
            acked = new HashSet<>(image.acked);
            sent = image.sent.clone();
            clock = image.clock.clone();
            cuts = image.cuts;
            protocol = image.section == null
                ? new PastToFuture<>(id, ranks.length, workload.initialEpochs()[id], schedule.options(), schedule.mutations())
                : PastToFuture.restore(image.section, schedule.options(), schedule.mutations());
            generations.tailMap(epoch, false).clear();
            inFlight.clear();
            inFlightImages.clear();
            cutWanted = false;
            decidedPc = pc;
            for (final ArrayDeque<Replay<Content>> queue : replays)
            {
                queue.clear();
            }
            for (int r = 0; r < ranks.length; r++)
            {
                channels[r][id].clear();
                channels[id][r].clear();
                acks[r][id].clear();
            }
            count("restores");
        }

        boolean done()
        {
            return pc == program.size();
        }

        /** The epoch the simulator counts, independently of the protocol. */
        int epoch()
        {
            return workload.initialEpochs()[id] + cuts;
        }

        String describe()
        {
            return "rank " + id + " at " + pc + "/" + program.size()
                + (done() ? "" : " (" + program.get(pc) + ")") + ", " + protocol + ", awaiting acks "
                + protocol.awaitingAcks() + (inFlight.isEmpty() ? "" : ", " + inFlight + " in flight")
                + ", generations " + generations.keySet();
        }
    }

    /** A recovery session of the coordinator. */
    private final class Session
    {
        final int id;
        final Map<Integer, Integer> failed = new TreeMap<>();
        /** The receptions a failed rank had made before it failed: the trace the brute-force line reads. */
        final Map<Integer, List<Received>> lostReceptions = new TreeMap<>();
        final Set<Integer> reexecuting = new TreeSet<>();
        final Set<Integer> restarted = new TreeSet<>();
        boolean lineComputed;
        final PhaseWatermark watermark = new PhaseWatermark();

        Session(final int id)
        {
            this.id = id;
        }
    }

    private final Workload workload;
    private final Schedule schedule;
    private final SplittableRandom random;
    private final Rank[] ranks;
    private final ArrayDeque<Envelope>[][] channels;
    private final ArrayDeque<Ack>[][] acks;
    private final Map<Long, Integer> lastReceiveEpoch = new HashMap<>();
    private final List<String> violations = new ArrayList<>();
    private final Map<String, Long> stats = new TreeMap<>();
    private Session session;
    private int sessions;
    private long step;

    @SuppressWarnings("unchecked")
    Simulation(final Schedule schedule)
    {
        this.schedule = schedule;
        this.workload = schedule.workload();
        this.random = new SplittableRandom(schedule.seed());
        final int n = workload.ranks();
        this.channels = new ArrayDeque[n][n];
        this.acks = new ArrayDeque[n][n];
        for (int s = 0; s < n; s++)
        {
            for (int d = 0; d < n; d++)
            {
                channels[s][d] = new ArrayDeque<>();
                acks[s][d] = new ArrayDeque<>();
            }
        }
        this.ranks = new Simulation.Rank[n];
        for (int r = 0; r < n; r++)
        {
            ranks[r] = new Rank(r);
        }
    }

    /** Runs a schedule without failures or mutations: the reference histories. */
    static List<List<Delivery>> reference(final Workload workload, final long seed)
    {
        final Schedule golden = new Schedule(workload, seed, List.of(), P2fOptions.DEFAULTS,
            EnumSet.noneOf(Mutation.class), false, EnumSet.noneOf(Oracle.class));
        final Simulation simulation = new Simulation(golden);
        simulation.run(null);
        if (!simulation.violations.isEmpty())
        {
            throw new AssertionError("the failure-free run of " + workload + " did not complete: " + simulation.violations);
        }
        final List<List<Delivery>> histories = new ArrayList<>();
        for (final Rank rank : simulation.ranks)
        {
            histories.add(rank.history);
        }
        return histories;
    }

    /**
     * @param expected the reference histories, or null to record them.
     * @return what the run found.
     */
    Outcome run(final List<List<Delivery>> expected)
    {
        final long bound = 400L * (workload.operations() + 50) * (1 + schedule.failures().size());
        int nextFailure = 0;
        try
        {
            while (!finished())
            {
                if (++step > bound)
                {
                    violate(Oracle.LIVENESS, "no end after " + bound + " steps: " + describe());
                    break;
                }
                nextFailure = injectFailures(nextFailure);
                coordinate();
                if (finished() || !violations.isEmpty() && schedule.oracles().isEmpty())
                {
                    break;
                }
                final List<long[]> enabled = enabled();
                if (enabled.isEmpty())
                {
                    violate(Oracle.LIVENESS, "stuck: nothing can happen: " + describe());
                    break;
                }
                perform(enabled.get(random.nextInt(enabled.size())));
            }
        }
        catch (final IllegalStateException e)
        {
            violations.add("protocol failed loudly at step " + step + ": " + e.getMessage());
        }
        if (violations.isEmpty() && expected != null)
        {
            for (final Rank rank : ranks)
            {
                if (!rank.history.equals(expected.get(rank.id)))
                {
                    violate(Oracle.OUTPUT, "rank " + rank.id + " delivered " + firstDifference(rank.history,
                        expected.get(rank.id)));
                }
            }
        }
        stats.put("steps", step);
        return new Outcome(schedule, violations, stats);
    }

    private static String firstDifference(final List<Delivery> actual, final List<Delivery> expected)
    {
        for (int i = 0; i < Math.min(actual.size(), expected.size()); i++)
        {
            if (!actual.get(i).equals(expected.get(i)))
            {
                return actual.get(i) + " where the failure-free run delivered " + expected.get(i) + " (delivery " + i + ")";
            }
        }
        return actual.size() + " transfers where the failure-free run delivered " + expected.size();
    }

    private boolean finished()
    {
        if (session != null)
        {
            return false;
        }
        for (final Rank rank : ranks)
        {
            if (!rank.done())
            {
                return false;
            }
            for (int d = 0; d < ranks.length; d++)
            {
                if (!channels[rank.id][d].isEmpty() || !acks[rank.id][d].isEmpty())
                {
                    return false;
                }
            }
        }
        return true;
    }

    // ---- failures and the coordinator

    private int injectFailures(final int next)
    {
        int index = next;
        final Set<Integer> victims = new TreeSet<>();
        while (index < schedule.failures().size())
        {
            final Failure failure = schedule.failures().get(index);
            if (failure.atStep() > step)
            {
                break;
            }
            final Rank victim = ranks[failure.victim()];
            final boolean ready = switch (failure.trigger())
            {
                case ANY -> true;
                case IN_RECOVERY -> session != null;
                case CHECKPOINT_IN_FLIGHT -> !victim.inFlight.isEmpty();
                case AWAITING_ACK -> victim.protocol.awaitingAcks() > 0;
            };
            if (!ready && step < failure.atStep() + 2000)
            {
                break;
            }
            victims.add(failure.victim());
            index++;
        }
        if (!victims.isEmpty())
        {
            fail(victims);
        }
        return index;
    }

    /**
     * Fail-stop failures of {@code victims}. A failure during a recovery also restarts every rank that was
     * re-executing in it, as if it had failed too: the new session then starts from checkpoints only, the case seed
     * 001's Theorem 1 covers (the simulator found causal-order violations and deadlocks when a half-finished
     * re-execution carried on into the next session).
     */
    private void fail(final Set<Integer> victims)
    {
        final Set<Integer> restarting = new TreeSet<>(victims);
        final Session previous = session;
        session = new Session(++sessions);
        if (previous != null)
        {
            count("aborted sessions");
            restarting.addAll(previous.reexecuting);
            if (!previous.lineComputed)
            {
                session.lostReceptions.putAll(previous.lostReceptions);
            }
        }
        for (final int victim : restarting)
        {
            final Rank rank = ranks[victim];
            final int newest = rank.generations.lastKey();
            session.lostReceptions.putIfAbsent(victim, rank.receptions);
            rank.restore(newest);
            session.failed.put(victim, newest);
            session.reexecuting.add(victim);
            session.restarted.add(victim);
            trace("FAIL " + victim + " restored at " + newest + ": " + rank.describe());
            count(victims.contains(victim) ? "failures" : "restarts of re-executing ranks");
        }
        for (final Rank rank : ranks)
        {
            rank.protocol.endRecovery();
            for (final ArrayDeque<Replay<Content>> queue : rank.replays)
            {
                queue.clear();
            }
        }
    }

    private void coordinate()
    {
        if (session == null)
        {
            return;
        }
        if (!session.lineComputed)
        {
            if (!quiescent())
            {
                return;
            }
            computeLine();
        }
        if (session.watermark.watermark() == PhaseWatermark.OPEN && noReplaysLeft())
        {
            for (final Rank rank : ranks)
            {
                if (rank.protocol.pendingOrphans() != 0)
                {
                    violate(Oracle.EXACTLY_ONCE, "session " + session.id + " ended with orphans pending at " + rank.describe());
                }
                rank.protocol.endRecovery();
            }
            session = null;
            collectGarbage();
        }
    }

    /** Every ack already sent has arrived, so every reception so far is in its sender's dependencies. */
    private boolean quiescent()
    {
        for (int s = 0; s < ranks.length; s++)
        {
            for (int d = 0; d < ranks.length; d++)
            {
                if (!acks[s][d].isEmpty())
                {
                    return false;
                }
            }
        }
        return true;
    }

    private boolean noReplaysLeft()
    {
        for (final Rank rank : ranks)
        {
            for (final ArrayDeque<Replay<Content>> queue : rank.replays)
            {
                if (!queue.isEmpty())
                {
                    return false;
                }
            }
        }
        return true;
    }

    private void computeLine()
    {
        final int n = ranks.length;
        final int[] seeds = new int[n];
        Arrays.fill(seeds, RecoveryLine.NONE);
        session.failed.forEach((rank, epoch) -> seeds[rank] = epoch);
        final List<SentPerEpoch> dependencies = new ArrayList<>();
        final List<NavigableMap<Integer, Image>> kept = new ArrayList<>();
        for (final Rank rank : ranks)
        {
            dependencies.add(rank.protocol.dependencies());
            kept.add(rank.generations);
        }
        final int gcEpoch = gcEpoch();
        final int[] line = RecoveryLine.compute(seeds, dependencies, kept.stream().map(NavigableMap::navigableKeySet).toList());
        final int[] oracle = bruteForceLine(seeds, session.lostReceptions, false);
        if (!Arrays.equals(line, oracle))
        {
            violate(Oracle.RECOVERY_LINE, "session " + session.id + ": recovery line " + render(line)
                + " but the trace gives " + render(oracle));
        }
        final int lowestSeed = Arrays.stream(seeds).min().orElseThrow();
        final boolean noneInFlight = Arrays.stream(ranks).allMatch(rank -> rank.inFlight.isEmpty());
        for (int r = 0; r < n; r++)
        {
            if (line[r] != RecoveryLine.NONE && (line[r] < gcEpoch || noneInFlight && line[r] < lowestSeed))
            {
                violate(Oracle.NO_DOMINO, "session " + session.id + ": rank " + r + " goes back to epoch " + line[r]
                    + ", below the committed floor " + gcEpoch + " or the lowest restarted epoch " + lowestSeed);
            }
        }
        for (int r = 0; r < n; r++)
        {
            if (line[r] != RecoveryLine.NONE && !(session.failed.containsKey(r) && session.failed.get(r) == line[r]))
            {
                ranks[r].restore(line[r]);
                session.reexecuting.add(r);
                session.restarted.add(r);
                count("rollbacks");
            }
        }
        trace("LINE " + render(line) + " trace " + render(oracle));
        registerOrphans();
        for (final Rank sender : ranks)
        {
            for (int target = 0; target < n; target++)
            {
                if (target != sender.id && (session.restarted.contains(target) || session.restarted.contains(sender.id)))
                {
                    final long last = ranks[target].protocol.lastAccepted(sender.id);
                    sender.replays.get(target).addAll(sender.protocol.replaysTo(target, last));
                }
            }
        }
        session.lineComputed = true;
        count("sessions");
    }

    private void registerOrphans()
    {
        for (final Rank receiver : ranks)
        {
            final Set<Integer> phases = new TreeSet<>();
            for (final Rank sender : ranks)
            {
                if (sender == receiver)
                {
                    continue;
                }
                final long from = sender.protocol.nextSsn(receiver.id);
                final long last = receiver.protocol.lastAccepted(sender.id);
                long truth = 0;
                for (final Received received : receiver.receptions)
                {
                    if (received.source() == sender.id && received.ssn() >= sender.sent[receiver.id])
                    {
                        truth++;
                    }
                }
                long registered = 0;
                if (last >= from)
                {
                    final NavigableMap<Integer, Integer> byPhase = receiver.protocol.expectOrphans(sender.id, from);
                    phases.addAll(byPhase.keySet());
                    registered = byPhase.values().stream().mapToLong(Integer::longValue).sum();
                    sender.protocol.suppressUpTo(receiver.id, last);
                }
                if (registered != truth && schedule.mutations().isEmpty())
                {
                    violate(Oracle.ORPHAN_COUNT, "rank " + receiver.id + " expects " + registered + " orphans from rank "
                        + sender.id + " but holds " + truth);
                }
                count("orphans", registered);
            }
            phases.forEach(session.watermark::expect);
        }
    }

    /**
     * The recovery lines if {@code victim} failed at the end of a completed run: by the protocol, and by plain
     * uncoordinated checkpointing that logs nothing (every reception a dependency).
     *
     * @return the protocol's line, then the baseline's.
     */
    int[][] linesIfFailed(final int victim)
    {
        final int[] seeds = new int[ranks.length];
        Arrays.fill(seeds, RecoveryLine.NONE);
        seeds[victim] = ranks[victim].generations.lastKey();
        final List<SentPerEpoch> dependencies = new ArrayList<>();
        final List<NavigableSet<Integer>> kept = new ArrayList<>();
        for (final Rank rank : ranks)
        {
            dependencies.add(rank.protocol.dependencies());
            kept.add(rank.generations.navigableKeySet());
        }
        return new int[][] {RecoveryLine.compute(seeds, dependencies, kept), bruteForceLine(seeds, Map.of(), true)};
    }

    /** The epoch each rank started in. */
    int[] initialEpochs()
    {
        return workload.initialEpochs().clone();
    }

    /**
     * Oracle 3: the recovery line from the full record of acknowledged receptions, by brute force.
     *
     * @param lost          the receptions failed ranks made before they failed.
     * @param includeLogged true for a baseline without logging, where past-to-future receptions are dependencies too.
     */
    private int[] bruteForceLine(final int[] seeds, final Map<Integer, List<Received>> lost, final boolean includeLogged)
    {
        final int[] line = seeds.clone();
        boolean changed = true;
        while (changed)
        {
            changed = false;
            for (final Rank receiver : ranks)
            {
                if (line[receiver.id] == RecoveryLine.NONE)
                {
                    continue;
                }
                for (final Received received : lost.getOrDefault(receiver.id, receiver.receptions))
                {
                    final Rank sender = ranks[received.source()];
                    final long key = key(receiver.id, received.ssn());
                    if (received.epoch() < line[receiver.id] || !sender.acked.contains(key))
                    {
                        continue;
                    }
                    final int sendEpoch = sender.sendEpochs.get(key);
                    if (sendEpoch < received.epoch() && !includeLogged)
                    {
                        continue;
                    }
                    final Integer floor = sender.generations.floorKey(sendEpoch);
                    if (floor != null && floor < line[sender.id])
                    {
                        line[sender.id] = floor;
                        changed = true;
                    }
                }
            }
        }
        return line;
    }

    private int gcEpoch()
    {
        int gc = Integer.MAX_VALUE;
        for (final Rank rank : ranks)
        {
            gc = Math.min(gc, rank.generations.lastKey());
        }
        return gc;
    }

    private void collectGarbage()
    {
        if (!schedule.aggressiveGc())
        {
            return;
        }
        final int gc = gcEpoch();
        for (final Rank rank : ranks)
        {
            final Integer floor = rank.generations.floorKey(gc);
            if (floor != null)
            {
                rank.generations.headMap(floor, false).clear();
            }
            rank.protocol.collect(gc);
        }
    }

    // ---- the scheduler

    private static final int EXECUTE = 0;
    private static final int CUT = 1;
    private static final int COMMIT = 2;
    private static final int DUPLICATE = 3;
    private static final int ACK = 4;
    private static final int REPLAY = 5;

    private List<long[]> enabled()
    {
        final List<long[]> enabled = new ArrayList<>();
        for (final Rank rank : ranks)
        {
            decideCut(rank);
            if (rank.cutWanted)
            {
                enabled.add(new long[] {CUT, rank.id});
            }
            else if (mayExecute(rank))
            {
                enabled.add(new long[] {EXECUTE, rank.id});
            }
            if (!rank.inFlight.isEmpty() && rank.protocol.mayCommit(rank.inFlight.peek()))
            {
                enabled.add(new long[] {COMMIT, rank.id});
            }
            if (session != null && session.lineComputed)
            {
                for (int d = 0; d < ranks.length; d++)
                {
                    final Replay<Content> head = rank.replays.get(d).peek();
                    if (head != null && released(head.phase(), false))
                    {
                        enabled.add(new long[] {REPLAY, rank.id, d});
                    }
                }
            }
            for (int d = 0; d < ranks.length; d++)
            {
                final Envelope head = channels[rank.id][d].peek();
                if (head != null && head.stamp().ssn() <= ranks[d].protocol.lastAccepted(rank.id)
                    && (head.payload() == null || !schedule.mutations().contains(Mutation.NO_DUPLICATE_SUPPRESSION)))
                {
                    enabled.add(new long[] {DUPLICATE, rank.id, d});
                }
                if (!acks[rank.id][d].isEmpty())
                {
                    enabled.add(new long[] {ACK, rank.id, d});
                }
            }
        }
        return enabled;
    }

    private boolean released(final int phase, final boolean reexecuted)
    {
        return !schedule.options().phaseGating()
            || PhaseWatermark.releases(session.watermark.watermark(), phase, reexecuted);
    }

    private void decideCut(final Rank rank)
    {
        if (rank.decidedPc != rank.pc && !rank.done())
        {
            rank.decidedPc = rank.pc;
            rank.cutWanted = workload.cuts().cutBefore(rank.id, rank.pc);
        }
    }

    private boolean mayExecute(final Rank rank)
    {
        if (rank.done() || session != null && !session.lineComputed)
        {
            return false;
        }
        final Op op = rank.program.get(rank.pc);
        switch (op.kind())
        {
            case SEND:
                return session == null || rank.replays.get(op.peer()).isEmpty()
                    && released(rank.protocol.phase(), session.reexecuting.contains(rank.id));
            case RECV:
                return arrival(op.peer(), rank.id) != null;
            default:
                for (int s = 0; s < ranks.length; s++)
                {
                    if (arrival(s, rank.id) != null)
                    {
                        return true;
                    }
                }
                return false;
        }
    }

    /** The next transfer from {@code source} that {@code target} would accept, or null. */
    private Envelope arrival(final int source, final int target)
    {
        final Envelope head = channels[source][target].peek();
        return head == null || head.payload() == null ? null : head;
    }

    private static final boolean TRACE = Boolean.getBoolean("spillway.test.p2fTrace");

    private void trace(final String event)
    {
        if (TRACE)
        {
            System.out.println(step + " " + event);
        }
    }

    private void perform(final long[] action)
    {
        final Rank rank = ranks[(int) action[1]];
        if (TRACE)
        {
            final String[] names = {"execute", "cut", "commit", "duplicate", "ack", "replay"};
            trace(names[(int) action[0]] + " " + rank.id + (action.length > 2 ? "->" + action[2] : "")
                + (action[0] == EXECUTE ? " " + rank.program.get(rank.pc) + " " + rank.protocol : "")
                + (action[0] == ACK ? " " + acks[rank.id][(int) action[2]].peek() : "")
                + (action[0] == REPLAY ? " " + rank.replays.get((int) action[2]).peek() : "")
                + (action[0] == DUPLICATE ? " " + channels[rank.id][(int) action[2]].peek() : ""));
        }
        switch ((int) action[0])
        {
            case EXECUTE -> execute(rank);
            case CUT -> cut(rank);
            case COMMIT -> commit(rank);
            case DUPLICATE -> receive(channels[rank.id][(int) action[2]].poll());
            case ACK -> ack(acks[rank.id][(int) action[2]].poll());
            case REPLAY -> replay(rank, rank.replays.get((int) action[2]).poll());
            default -> throw new IllegalArgumentException("action " + action[0]);
        }
    }

    private void execute(final Rank rank)
    {
        final Op op = rank.program.get(rank.pc);
        if (op.kind() == Kind.SEND)
        {
            final int target = op.peer();
            final long payload = mix(rank.app, target * 0x9E3779B97F4A7C15L + rank.sent[target]);
            rank.clock[rank.id * ranks.length + target] = rank.sent[target] + 1;
            final long[] clock = rank.clock.clone();
            final Stamp stamp = rank.protocol.send(target, new Content(payload, clock));
            if (stamp.ssn() != rank.sent[target])
            {
                throw new AssertionError("rank " + rank.id + " stamped ssn " + stamp.ssn() + " for its transfer "
                    + rank.sent[target] + " to rank " + target);
            }
            rank.sent[target]++;
            if (stamp.epoch() != rank.epoch())
            {
                violate(Oracle.EPOCHS, "rank " + rank.id + " stamped " + stamp + " in epoch " + rank.epoch());
            }
            rank.sendEpochs.put(key(target, stamp.ssn()), rank.epoch());
            rank.app = mix(rank.app, 0x5E4DL + target);
            final boolean reexecuted = session != null && session.reexecuting.contains(rank.id);
            channels[rank.id][target].add(new Envelope(rank.id, target, stamp, stamp.suppressed() ? null : payload,
                reexecuted ? Path.REEXECUTED : Path.ORIGINAL, clock));
            count(stamp.suppressed() ? "suppressed orphans" : "sends");
            rank.pc++;
            return;
        }
        int source = op.peer();
        if (op.kind() == Kind.RECV_ANY)
        {
            final List<Integer> candidates = new ArrayList<>();
            for (int s = 0; s < ranks.length; s++)
            {
                if (arrival(s, rank.id) != null)
                {
                    candidates.add(s);
                }
            }
            source = candidates.get(random.nextInt(candidates.size()));
        }
        final Envelope envelope = channels[source][rank.id].poll();
        trace("  receives " + envelope);
        final Reception reception = receive(envelope);
        if (reception != null && reception.deliver())
        {
            if (op.kind() == Kind.RECV_ANY)
            {
                checkCausalOrder(rank, envelope);
            }
            for (int i = 0; i < rank.clock.length; i++)
            {
                rank.clock[i] = Math.max(rank.clock[i], envelope.clock()[i]);
            }
            rank.history.add(new Delivery(source, envelope.stamp().ssn(), envelope.payload()));
            rank.app = mix(rank.app, envelope.payload());
            rank.protocol.consumed(reception.phase());
            rank.pc++;
        }
    }

    private void cut(final Rank rank)
    {
        rank.cutWanted = false;
        rank.cuts++;
        rank.inFlight.add(rank.protocol.cut());
        rank.inFlightImages.add(rank.image());
        count("cuts");
        if (rank.inFlight.size() == 1 && rank.protocol.mayCommit(rank.inFlight.peek()))
        {
            commit(rank);
        }
    }

    private void commit(final Rank rank)
    {
        final EpochCut cut = rank.inFlight.poll();
        final Image image = rank.inFlightImages.poll();
        image.section = rank.protocol.committed(cut, gcEpoch());
        image.acked = new HashSet<>();
        for (final long key : rank.acked)
        {
            if (ssnOf(key) < cut.nextSsn(targetOf(key)))
            {
                image.acked.add(key);
            }
        }
        rank.generations.put(cut.epoch(), image);
        collectGarbage();
    }

    /**
     * Oracle 7, where the runtime picks the match (an anonymous receive): every transfer to this rank in the causal
     * past of the one delivered has been delivered already.
     */
    private void checkCausalOrder(final Rank receiver, final Envelope envelope)
    {
        for (int s = 0; s < ranks.length; s++)
        {
            final long inPast = envelope.clock()[s * ranks.length + receiver.id] - (s == envelope.source() ? 1 : 0);
            final int from = s;
            final long delivered = receiver.history.stream().filter(d -> d.source() == from).count();
            if (delivered < inPast)
            {
                violate(Oracle.CAUSAL_DELIVERY, "rank " + receiver.id + " matched " + envelope.stamp() + " from rank "
                    + envelope.source() + " before transfer " + (inPast - 1) + " from rank " + s
                    + ", which precedes it causally");
            }
        }
    }

    /** A transfer reaches its receiver: a receive operation, or a duplicate dropped. */
    private Reception receive(final Envelope envelope)
    {
        final Rank receiver = ranks[envelope.target()];
        final Reception reception = receiver.protocol.receive(envelope.source(), envelope.stamp(), receiver.epoch());
        final long key3 = (long) envelope.source() << 56 | key(envelope.target(), envelope.stamp().ssn());
        if (reception.deliver())
        {
            if (envelope.path() == Path.LOG)
            {
                final Integer original = lastReceiveEpoch.get(key3);
                if (original == null || envelope.stamp().epoch() >= original)
                {
                    violate(Oracle.LOG_REPLAYS, "rank " + envelope.source() + " served " + envelope.stamp()
                        + " from its log, but it was received in epoch " + original);
                }
            }
            if (reception.ackEpoch() != receiver.epoch())
            {
                violate(Oracle.EPOCHS, "rank " + receiver.id + " acks " + envelope.stamp() + " with epoch "
                    + reception.ackEpoch() + ", received in epoch " + receiver.epoch());
            }
            lastReceiveEpoch.put(key3, receiver.epoch());
            receiver.receptions.add(new Received(envelope.source(), envelope.stamp().ssn(), receiver.epoch()));
            count("deliveries " + envelope.path().name().toLowerCase());
        }
        else
        {
            count("duplicates dropped");
            final Received original = receiver.receptions.stream().filter(r -> r.source() == envelope.source()
                && r.ssn() == envelope.stamp().ssn()).findFirst().orElse(null);
            if (reception.ackEpoch() != Reception.NO_ACK && (original == null || original.epoch() != reception.ackEpoch()))
            {
                violate(Oracle.EPOCHS, "rank " + receiver.id + " acks duplicate " + envelope.stamp() + " with epoch "
                    + reception.ackEpoch() + " but received it in " + (original == null ? "no epoch" : "epoch "
                    + original.epoch()));
            }
        }
        if (reception.clearedPhase() != Reception.NO_PHASE)
        {
            if (session == null || !session.lineComputed)
            {
                violate(Oracle.EXACTLY_ONCE, "an orphan arrived outside a recovery");
            }
            else
            {
                session.watermark.cleared(reception.clearedPhase());
            }
        }
        if (reception.ackEpoch() != Reception.NO_ACK)
        {
            acks[receiver.id][envelope.source()].add(new Ack(receiver.id, envelope.source(), envelope.stamp().ssn(),
                reception.ackEpoch()));
        }
        return reception;
    }

    private void ack(final Ack ack)
    {
        final Rank sender = ranks[ack.sender()];
        final PastToFuture.Acked acked = sender.protocol.acked(ack.receiver(), ack.ssn(), ack.epoch());
        if (acked == PastToFuture.Acked.STALE)
        {
            count("stale acks");
            return;
        }
        final long key = key(ack.receiver(), ack.ssn());
        sender.acked.add(key);
        final boolean pastToFuture = sender.sendEpochs.get(key) < ack.epoch();
        if (sender.protocol.logs(ack.receiver(), ack.ssn()) != pastToFuture)
        {
            violate(Oracle.MINIMAL_LOGGING, "rank " + sender.id + " sent transfer " + ack.ssn() + " to rank "
                + ack.receiver() + " in epoch " + sender.sendEpochs.get(key) + ", received in epoch " + ack.epoch()
                + (pastToFuture ? ", and did not log it" : ", and logged it"));
        }
        count(pastToFuture ? "logged" : "not logged");
    }

    private void replay(final Rank sender, final Replay<Content> replay)
    {
        final Path path = replay.from() == Replay.From.LOG ? Path.LOG : Path.NON_ACK;
        channels[sender.id][replay.target()].add(new Envelope(sender.id, replay.target(),
            new Stamp(replay.target(), replay.ssn(), replay.epoch(), replay.phase(), false), replay.payload().value(),
            path, replay.payload().clock()));
        count("replays " + path.name().toLowerCase());
    }

    // ---- helpers

    private void violate(final Oracle oracle, final String message)
    {
        if (schedule.oracles().contains(oracle) || oracle == Oracle.LIVENESS && schedule.oracles().isEmpty())
        {
            violations.add(oracle + ": " + message);
        }
    }

    private void count(final String stat)
    {
        count(stat, 1);
    }

    private void count(final String stat, final long n)
    {
        stats.merge(stat, n, Long::sum);
    }

    private String describe()
    {
        final StringBuilder text = new StringBuilder();
        text.append(session == null ? "no recovery" : "session " + session.id + (session.lineComputed
            ? ", " + session.watermark : ", awaiting quiescence") + ", reexecuting " + (session == null ? "" : session.reexecuting));
        for (final Rank rank : ranks)
        {
            text.append("; ").append(rank.describe());
            for (int d = 0; d < ranks.length; d++)
            {
                if (!channels[rank.id][d].isEmpty() || !acks[rank.id][d].isEmpty())
                {
                    text.append(", to rank ").append(d).append(' ').append(channels[rank.id][d]).append(' ')
                        .append(acks[rank.id][d]);
                }
            }
        }
        return text.toString();
    }

    static String render(final int[] line)
    {
        final StringBuilder text = new StringBuilder("[");
        for (int r = 0; r < line.length; r++)
        {
            text.append(r == 0 ? "" : ", ").append(line[r] == RecoveryLine.NONE ? "-" : String.valueOf(line[r]));
        }
        return text.append(']').toString();
    }

    private static long key(final int target, final long ssn)
    {
        return (long) target << 40 | ssn;
    }

    private static int targetOf(final long key)
    {
        return (int) (key >>> 40 & 0xFFFF);
    }

    private static long ssnOf(final long key)
    {
        return key & ((1L << 40) - 1);
    }

    private static long mix(final long state, final long value)
    {
        long z = state * 31 + value + 0x9E3779B97F4A7C15L;
        z = (z ^ z >>> 30) * 0xBF58476D1CE4E5B9L;
        z = (z ^ z >>> 27) * 0x94D049BB133111EBL;
        return z ^ z >>> 31;
    }
}
