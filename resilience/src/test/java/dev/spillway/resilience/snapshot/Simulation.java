package dev.spillway.resilience.snapshot;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A deterministic simulator of checkpoint waves over one-sided operations (spec §C.4): ranks run a {@link Workload}
 * over FIFO channels, one per directed pair, each rank's NIC applies writes and serves gets without its process, and
 * a seeded scheduler picks the next step among those enabled (an application operation, the delivery of a channel's
 * head, a NIC serving the read requests it held). A {@link Schedule} may start with a scripted prefix.
 * Waves start at seeded steps. A run ends when no step is enabled; work left then is a hang.
 *
 * <p>The simulator records a {@link Trace} for the {@link CutChecker}, and checks the rest itself: every wave ends,
 * the run's final state is the program's, accumulates are conserved inside every snapshot, and a global rollback to
 * the newest snapshot runs to the same final state.
 */
final class Simulation
{
    /** A defect of the simulated NIC, for the negative controls. */
    enum NicDefect
    {
        /** Response segments are sent by several threads: in any order, interleaved with control messages (G4). */
        MULTI_THREADED,
        /** Read requests held by a {@link SnapshotProtocol#DELAY} NIC are left out of the snapshot. */
        HELD_REQUESTS_NOT_SAVED
    }

    enum StepType
    {
        APP, DELIVER, INITIATE, SERVE_HELD, EMIT
    }

    /** One step: {@code peer} is the receiver of a delivery, and unused otherwise. */
    record Step(StepType type, int rank, int peer)
    {
        static Step app(final int rank)
        {
            return new Step(StepType.APP, rank, 0);
        }

        static Step deliver(final int from, final int to)
        {
            return new Step(StepType.DELIVER, from, to);
        }

        static Step initiate(final int rank)
        {
            return new Step(StepType.INITIATE, rank, 0);
        }
    }

    /** {@code rank} initiates a wave before step {@code atStep}. */
    record Initiation(long atStep, int rank)
    {
    }

    record Schedule(Workload workload, SnapshotProtocol protocol, long seed, List<Initiation> initiations,
        List<Step> script, Set<Mutation> mutations, Set<NicDefect> defects)
    {
        Schedule with(final Set<Mutation> otherMutations, final Set<NicDefect> otherDefects)
        {
            return new Schedule(workload, protocol, seed, initiations, script, otherMutations, otherDefects);
        }

        @Override
        public String toString()
        {
            return protocol + " seed " + seed + " " + mutations + defects + " initiations " + initiations + " "
                + workload;
        }
    }

    /**
     * What a run found; {@code trace} is the first run's, {@code replayWindows} the windows at the end of the run
     * rolled back to the newest complete snapshot (null when no wave completed).
     */
    record Outcome(Schedule schedule, List<String> violations, Trace trace, long[][] replayWindows)
    {
        boolean passed()
        {
            return violations.isEmpty();
        }

        boolean found(final String category)
        {
            return violations.stream().anyMatch(v -> v.startsWith(category + ":"));
        }

        @Override
        public String toString()
        {
            return schedule + (passed() ? " passed" : " FAILED: " + violations);
        }
    }

    static final int STEP_LIMIT = 200_000;

    private enum PacketType
    {
        PUT, ACCUMULATE, GET_REQUEST, GET_RESPONSE, CONTROL
    }

    /** What travels on a channel; {@code leg} and {@code get} are null in a rollback run, which is not traced. */
    private record Packet(PacketType type, int source, int target, int address, long value, int length, int getId,
        ControlMessage control, Trace.Leg leg, Trace.Get get)
    {
    }

    /** A get awaiting its segments. */
    private static final class Pending
    {
        final int target;
        final int words;
        final Trace.Get get;
        int received;
        long sum;

        Pending(final int target, final int words, final Trace.Get get)
        {
            this.target = target;
            this.words = words;
            this.get = get;
        }

        Pending copy()
        {
            final Pending copy = new Pending(target, words, null);
            copy.received = received;
            copy.sum = sum;
            return copy;
        }
    }

    /** A rank's local checkpoint: window, program counter, private memory, pending gets, held read requests. */
    private record Image(long[] window, int pc, long reads, long accumulated, Map<Integer, Pending> pending,
        List<Packet> heldRequests, int nextGet)
    {
    }

    private final Schedule schedule;
    private final Workload workload;
    private final int n;
    private final SplittableRandom random;
    private final Trace trace;
    private final boolean traced;
    private final ArrayDeque<Packet>[][] channels;
    private final Rank[] ranks;
    private final Map<Integer, Image[]> snapshots = new TreeMap<>();
    /** What went wrong while running: a response for no pending get. */
    private final List<String> anomalies = new ArrayList<>();
    private long step;

    private Simulation(final Schedule schedule, final Image[] restored, final int restoredWave)
    {
        this.schedule = schedule;
        this.workload = schedule.workload();
        this.n = workload.ranks();
        this.traced = restored == null;
        this.random = new SplittableRandom(traced ? schedule.seed() : ~schedule.seed());
        this.trace = new Trace(n);
        @SuppressWarnings("unchecked")
        final ArrayDeque<Packet>[][] queues = new ArrayDeque[n][n];
        for (final ArrayDeque<Packet>[] row : queues)
        {
            for (int t = 0; t < n; t++)
            {
                row[t] = new ArrayDeque<>();
            }
        }
        this.channels = queues;
        this.ranks = new Rank[n];
        for (int r = 0; r < n; r++)
        {
            ranks[r] = restored == null ? new Rank(r, 0) : new Rank(r, restoredWave + 1, restored[r]);
        }
    }

    /** Runs {@code schedule}, checks it, and rolls back to its newest complete snapshot to check the replay. */
    static Outcome run(final Schedule schedule)
    {
        final Simulation first = new Simulation(schedule, null, 0);
        final List<String> violations = new ArrayList<>();
        first.runToQuiescence(schedule.script(), schedule.initiations());
        violations.addAll(first.anomalies);
        first.checkEnd("LIVENESS", violations);
        violations.addAll(CutChecker.check(first.trace));
        first.checkConservation(violations);
        final List<Integer> complete = first.trace.completeWaves();
        if (complete.isEmpty())
        {
            return new Outcome(schedule, violations, first.trace, null);
        }
        final int wave = complete.get(complete.size() - 1);
        final Simulation replay = new Simulation(schedule, first.snapshots.get(wave), wave);
        replay.runToQuiescence(List.of(), List.of());
        violations.addAll(replay.anomalies);
        replay.checkEnd("ROLLBACK_HANG", violations);
        final long[][] windows = new long[replay.n][];
        for (final Rank rank : replay.ranks)
        {
            windows[rank.id] = rank.window;
        }
        return new Outcome(schedule, violations, first.trace, windows);
    }

    private void runToQuiescence(final List<Step> script, final List<Initiation> initiations)
    {
        int nextInitiation = 0;
        final List<Step> enabled = new ArrayList<>();
        for (final Step scripted : script)
        {
            enabled(enabled);
            if (scripted.type() != StepType.INITIATE && !enabled.contains(scripted))
            {
                throw new IllegalStateException("scripted step " + scripted + " is not enabled; enabled: " + enabled);
            }
            take(scripted);
        }
        while (step < STEP_LIMIT)
        {
            while (nextInitiation < initiations.size() && initiations.get(nextInitiation).atStep() <= step)
            {
                take(Step.initiate(initiations.get(nextInitiation++).rank()));
            }
            enabled(enabled);
            if (enabled.isEmpty())
            {
                if (nextInitiation == initiations.size())
                {
                    return;
                }
                step = initiations.get(nextInitiation).atStep();
                continue;
            }
            take(enabled.get(random.nextInt(enabled.size())));
        }
    }

    private void enabled(final List<Step> enabled)
    {
        enabled.clear();
        for (final Rank rank : ranks)
        {
            if (!rank.stuck && rank.pc < rank.program.size())
            {
                enabled.add(Step.app(rank.id));
            }
            if (!rank.heldRequests.isEmpty() && rank.agent.mayServe(rank.heldRequests.peek().source()))
            {
                enabled.add(new Step(StepType.SERVE_HELD, rank.id, 0));
            }
            if (!rank.emitting.isEmpty())
            {
                enabled.add(new Step(StepType.EMIT, rank.id, 0));
            }
            for (int t = 0; t < n; t++)
            {
                if (!channels[rank.id][t].isEmpty())
                {
                    enabled.add(Step.deliver(rank.id, t));
                }
            }
        }
    }

    private void take(final Step next)
    {
        step++;
        final Rank rank = ranks[next.rank()];
        switch (next.type())
        {
            case APP -> rank.app();
            case DELIVER -> ranks[next.peer()].deliver(channels[next.rank()][next.peer()].poll());
            case INITIATE -> rank.agent.initiate();
            case SERVE_HELD -> rank.serve(rank.heldRequests.poll());
            case EMIT -> rank.post(rank.emitting.remove(random.nextInt(rank.emitting.size())));
            default -> throw new IllegalStateException(next.toString());
        }
    }

    private void checkEnd(final String category, final List<String> violations)
    {
        final List<String> left = new ArrayList<>();
        for (final Rank rank : ranks)
        {
            if (rank.pc < rank.program.size() || !rank.pending.isEmpty() || rank.agent.mode() != Mode.NORMAL)
            {
                left.add("rank " + rank.id + " at op " + rank.pc + "/" + rank.program.size() + ", "
                    + rank.pending.size() + " gets pending, " + rank.agent.mode() + " in wave " + rank.agent.wave());
            }
        }
        if (!left.isEmpty())
        {
            violations.add(category + ": " + (step >= STEP_LIMIT ? "step limit" : "quiescent") + " with " + left);
            return;
        }
        for (final Rank rank : ranks)
        {
            final long[] expected = workload.finalWindow(rank.id);
            if (!Arrays.equals(rank.window, expected) || rank.reads != workload.finalReads(rank.id))
            {
                violations.add((traced ? "OUTPUT" : "ROLLBACK_STATE") + ": rank " + rank.id + " window "
                    + Arrays.toString(rank.window) + " reads " + rank.reads + ", expected "
                    + Arrays.toString(expected) + " reads " + workload.finalReads(rank.id));
            }
        }
    }

    /** Inside a consistent snapshot, what the sources accumulated equals what the counters hold. */
    private void checkConservation(final List<String> violations)
    {
        for (final int wave : trace.completeWaves())
        {
            long issued = 0;
            long held = 0;
            for (final Image image : snapshots.get(wave))
            {
                issued += image.accumulated();
                for (int c = 0; c < Workload.COUNTERS; c++)
                {
                    held += image.window()[Workload.CONSTANTS + c];
                }
            }
            if (issued != held)
            {
                violations.add("CONSERVATION: wave " + wave + " snapshot: accumulated " + issued + ", counters hold "
                    + held);
            }
        }
    }

    private final class Rank implements SnapshotHost
    {
        final int id;
        final List<Workload.Op> program;
        final SnapshotAgent agent;
        final ArrayDeque<Packet> heldRequests = new ArrayDeque<>();
        final List<Packet> emitting = new ArrayList<>();
        long[] window;
        int pc;
        long reads;
        long accumulated;
        Map<Integer, Pending> pending = new TreeMap<>();
        int nextGet;
        /** The last application step could not start its operation and sent nothing: wait for a message. */
        boolean stuck;
        private boolean sent;

        Rank(final int id, final int firstWave)
        {
            this.id = id;
            this.program = workload.programs().get(id);
            this.agent = new SnapshotAgent(id, n, firstWave, schedule.protocol(), this, schedule.mutations());
            this.window = workload.initialWindow(id);
        }

        Rank(final int id, final int firstWave, final Image image)
        {
            this(id, firstWave);
            window = image.window().clone();
            pc = image.pc();
            reads = image.reads();
            accumulated = image.accumulated();
            image.pending().forEach((getId, p) ->
            {
                pending.put(getId, p.copy());
                agent.resumeRead(p.target);
            });
            heldRequests.addAll(image.heldRequests());
            nextGet = image.nextGet();
        }

        void app()
        {
            final Workload.Op op = program.get(pc);
            sent = false;
            if (!agent.start(op.target(), op.type() == Workload.Type.GET ? Operation.READ : Operation.WRITE))
            {
                stuck = !sent;
                return;
            }
            pc++;
            switch (op.type())
            {
                case PUT -> post(new Packet(PacketType.PUT, id, op.target(), op.address(), op.value(), 1, 0, null,
                    leg("put", op.target()), null));
                case ACCUMULATE ->
                {
                    accumulated += op.value();
                    post(new Packet(PacketType.ACCUMULATE, id, op.target(), op.address(), op.value(), 1, 0, null,
                        leg("accumulate", op.target()), null));
                }
                case GET ->
                {
                    final Trace.Get get = traced ? trace.get(id, op.target()) : null;
                    pending.put(nextGet, new Pending(op.target(), op.length(), get));
                    post(new Packet(PacketType.GET_REQUEST, id, op.target(), op.address(), 0, op.length(), nextGet++,
                        null, null, get));
                }
                default -> throw new IllegalStateException(op.toString());
            }
        }

        void deliver(final Packet packet)
        {
            stuck = false;
            switch (packet.type())
            {
                case CONTROL -> agent.receive(packet.control());
                case PUT ->
                {
                    window[packet.address()] = packet.value();
                    applied(packet);
                }
                case ACCUMULATE ->
                {
                    window[packet.address()] += packet.value();
                    applied(packet);
                }
                case GET_REQUEST ->
                {
                    if (packet.get() != null)
                    {
                        packet.get().arrivedAt = trace.tick();
                    }
                    if (!heldRequests.isEmpty() || !agent.mayServe(packet.source()))
                    {
                        heldRequests.add(packet);
                    }
                    else
                    {
                        serve(packet);
                    }
                }
                case GET_RESPONSE -> land(packet);
                default -> throw new IllegalStateException(packet.toString());
            }
        }

        void serve(final Packet request)
        {
            if (request.get() != null)
            {
                request.get().servedAt = trace.tick();
            }
            for (int k = 0; k < request.length(); k++)
            {
                final Packet segment = new Packet(PacketType.GET_RESPONSE, id, request.source(),
                    request.address() + k, window[request.address() + k], 1, request.getId(), null, null,
                    request.get());
                if (schedule.defects().contains(NicDefect.MULTI_THREADED))
                {
                    emitting.add(segment);
                }
                else
                {
                    post(segment);
                }
            }
        }

        void land(final Packet segment)
        {
            final Pending get = pending.get(segment.getId());
            if (get == null)
            {
                anomalies.add("DUPLICATE: " + (traced ? "" : "after the rollback, ") + "rank " + id
                    + " got a response from rank " + segment.source() + " for no pending get");
                return;
            }
            get.received++;
            get.sum += segment.value();
            applied(segment);
            if (get.received == get.words)
            {
                pending.remove(segment.getId());
                reads += get.sum;
                if (get.get != null)
                {
                    get.get.doneAt = trace.tick();
                }
                agent.completed(get.target);
            }
        }

        /** Puts {@code packet} on its channel; a response segment's leg starts here. */
        void post(final Packet packet)
        {
            Packet posted = packet;
            if (packet.type() == PacketType.GET_RESPONSE && packet.get() != null)
            {
                final Trace.Leg leg = leg("get response", packet.target());
                packet.get().segments.add(leg);
                posted = new Packet(packet.type(), id, packet.target(), packet.address(), packet.value(), 1,
                    packet.getId(), null, leg, packet.get());
            }
            channels[id][posted.target()].add(posted);
        }

        @Override
        public void send(final ControlMessage message)
        {
            sent = true;
            final ControlMessage.Kind kind = message.kind();
            if (traced && (kind == ControlMessage.Kind.MARKER || kind == ControlMessage.Kind.FLUSH)
                && trace.switching(id, message.wave()))
            {
                pending.values().forEach(p -> trace.pendingAtSwitch.get(message.wave()).add(id + "→" + p.target));
            }
            if (traced)
            {
                trace.sent(message);
            }
            channels[id][message.target()].add(new Packet(PacketType.CONTROL, id, message.target(), 0, 0, 0, 0,
                message, null, null));
        }

        @Override
        public void checkpoint(final int wave)
        {
            final Map<Integer, Pending> pendingCopy = new TreeMap<>();
            pending.forEach((getId, p) -> pendingCopy.put(getId, p.copy()));
            final List<Packet> requests = schedule.defects().contains(NicDefect.HELD_REQUESTS_NOT_SAVED) ? List.of()
                : heldRequests.stream().map(r -> new Packet(r.type(), r.source(), r.target(), r.address(), 0,
                    r.length(), r.getId(), null, null, null)).toList();
            snapshots.computeIfAbsent(wave, w -> new Image[n])[id] = new Image(window.clone(), pc, reads, accumulated,
                pendingCopy, requests, nextGet);
            if (traced)
            {
                trace.checkpoint(id, wave);
            }
        }

        private Trace.Leg leg(final String what, final int target)
        {
            return traced ? trace.leg(what, id, target) : null;
        }

        private void applied(final Packet packet)
        {
            if (packet.leg() != null)
            {
                packet.leg().appliedAt = trace.tick();
            }
        }
    }

    /** @return a schedule with no defect. */
    static Schedule schedule(final Workload workload, final SnapshotProtocol protocol, final long seed,
        final List<Initiation> initiations, final List<Step> script)
    {
        return new Schedule(workload, protocol, seed, initiations, script, EnumSet.noneOf(Mutation.class),
            EnumSet.noneOf(NicDefect.class));
    }
}
