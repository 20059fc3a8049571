package dev.spillway.resilience.snapshot;

import dev.spillway.rdma.Header;
import dev.spillway.rdma.InProcessFabric;
import dev.spillway.rdma.Message;
import dev.spillway.rdma.Transport;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The default protocol on real threads over {@link InProcessFabric} (spec §C.4, stress): one thread per rank runs its
 * program, its agent and its "NIC"; every message is a two-sided send with one tag, so each directed pair is FIFO.
 * Rank 0 initiates three waves during the run. The {@link CutChecker} judges the trace; each wave's snapshot must
 * conserve the accumulates, and the final windows and reads must be the program's.
 */
class ThreadedStressTest
{
    static final int RUNS = Integer.getInteger("spillway.test.snapshotThreadedRuns", 20);
    static final int RANKS = 4;
    static final int WAVES = 3;
    static final int TAG = 77;
    static final Duration LIMIT = Duration.ofSeconds(60);

    private enum Type
    {
        PUT, ACCUMULATE, GET_REQUEST, GET_RESPONSE, CONTROL, FIN
    }

    @Test
    void everyWaveIsConsistentUnderRealConcurrency() throws Exception
    {
        for (int run = 0; run < RUNS; run++)
        {
            final SplittableRandom random = new SplittableRandom(run);
            final Workload workload = longProgram(random);
            final Trace trace = new Trace(RANKS);
            final List<ThreadedRank> ranks = new ArrayList<>();
            final ExecutorService threads = Executors.newFixedThreadPool(RANKS);
            try (InProcessFabric fabric = new InProcessFabric(RANKS, LIMIT))
            {
                for (int r = 0; r < RANKS; r++)
                {
                    ranks.add(new ThreadedRank(fabric.transport(r), workload, trace));
                }
                final List<Future<?>> running = new ArrayList<>();
                ranks.forEach(rank -> running.add(threads.submit(() -> rank.run())));
                for (final Future<?> future : running)
                {
                    future.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
                }
            }
            finally
            {
                threads.shutdownNow();
            }
            final String where = "run " + run;
            assertEquals(List.of(0, 1, 2), trace.completeWaves(), where);
            assertEquals(List.of(), CutChecker.check(trace), where);
            for (int wave = 0; wave < WAVES; wave++)
            {
                long issued = 0;
                long held = 0;
                for (final ThreadedRank rank : ranks)
                {
                    issued += rank.accumulatedAt.get(wave);
                    held += rank.countersAt.get(wave);
                }
                assertEquals(issued, held, where + " wave " + wave + ": accumulates conserved in the snapshot");
            }
            for (final ThreadedRank rank : ranks)
            {
                assertArrayEquals(workload.finalWindow(rank.id), rank.window, where + " rank " + rank.id);
                assertEquals(workload.finalReads(rank.id), rank.reads, where + " rank " + rank.id);
            }
        }
    }

    private static Workload longProgram(final SplittableRandom random)
    {
        final List<List<Workload.Op>> programs = new ArrayList<>();
        for (int i = 0; i < 5; i++)
        {
            final Workload part = Workload.draw(Workload.Kind.values()[i % 4], RANKS, random);
            for (int r = 0; r < RANKS; r++)
            {
                if (i == 0)
                {
                    programs.add(new ArrayList<>());
                }
                programs.get(r).addAll(part.programs().get(r));
            }
        }
        return new Workload(Workload.Kind.MIXED, programs);
    }

    /** One rank: its program, its agent and its NIC, all on its own thread. */
    private static final class ThreadedRank implements SnapshotHost
    {
        final int id;
        final Transport transport;
        final List<Workload.Op> program;
        final Trace trace;
        final SnapshotAgent agent;
        final long[] window;
        final Map<Integer, Trace.Leg> legs = new HashMap<>();
        final Map<Integer, Trace.Get> gets = new HashMap<>();
        final Map<Integer, int[]> pending = new HashMap<>();
        final List<Long> accumulatedAt = new ArrayList<>();
        final List<Long> countersAt = new ArrayList<>();
        long reads;
        long accumulated;
        int pc;
        int finsIn;
        boolean stuck;
        boolean sent;
        boolean finished;

        ThreadedRank(final Transport transport, final Workload workload, final Trace trace)
        {
            this.id = transport.rank();
            this.transport = transport;
            this.program = workload.programs().get(id);
            this.trace = trace;
            this.agent = new SnapshotAgent(id, RANKS, 0, SnapshotProtocol.DEFAULT, this);
            this.window = workload.initialWindow(id);
        }

        void run()
        {
            final ByteBuffer in = ByteBuffer.allocateDirect(64);
            CompletableFuture<Message> next = transport.receive(Transport.ANY_SOURCE, TAG, in);
            while (!finished || finsIn < RANKS - 1)
            {
                final boolean progressed = step();
                final Message message = progressed ? next.getNow(null) : next.join();
                if (message != null)
                {
                    handle(message.header().rank(), in.duplicate().limit(message.length()));
                    stuck = false;
                    next = transport.receive(Transport.ANY_SOURCE, TAG, in);
                }
            }
        }

        /** @return whether it did something other than wait for a message. */
        private boolean step()
        {
            if (id == 0 && agent.wave() < WAVES && agent.mode() == Mode.NORMAL
                && pc >= (agent.wave() + 1) * program.size() / (WAVES + 1))
            {
                agent.initiate();
                return true;
            }
            if (!stuck && pc < program.size())
            {
                app(program.get(pc));
                return true;
            }
            if (!finished && pc == program.size() && pending.isEmpty() && agent.wave() == WAVES
                && agent.mode() == Mode.NORMAL)
            {
                finished = true;
                for (int q = 0; q < RANKS; q++)
                {
                    if (q != id)
                    {
                        post(q, Type.FIN, 0, 0, 0, 0);
                    }
                }
                return true;
            }
            return false;
        }

        private void app(final Workload.Op op)
        {
            sent = false;
            if (!agent.start(op.target(), op.type() == Workload.Type.GET ? Operation.READ : Operation.WRITE))
            {
                stuck = !sent;
                return;
            }
            pc++;
            if (op.type() == Workload.Type.GET)
            {
                final Trace.Get get = trace.get(id, op.target());
                final int getId;
                synchronized (trace)
                {
                    getId = trace.gets.indexOf(get);
                }
                gets.put(getId, get);
                pending.put(getId, new int[] {op.target(), op.length(), 0});
                post(op.target(), Type.GET_REQUEST, op.address(), 0, op.length(), getId);
                return;
            }
            final Type type = op.type() == Workload.Type.PUT ? Type.PUT : Type.ACCUMULATE;
            accumulated += type == Type.ACCUMULATE ? op.value() : 0;
            final Trace.Leg leg = trace.leg(type == Type.PUT ? "put" : "accumulate", id, op.target());
            post(op.target(), type, op.address(), op.value(), 0, register(leg));
        }

        private void handle(final int from, final ByteBuffer message)
        {
            final Type type = Type.values()[message.getInt()];
            final int address = message.getInt();
            final long value = message.getLong();
            final int length = message.getInt();
            final int ref = message.getInt();
            switch (type)
            {
                case PUT, ACCUMULATE ->
                {
                    window[address] = type == Type.PUT ? value : window[address] + value;
                    applied(ref);
                }
                case GET_REQUEST ->
                {
                    final Trace.Get get = getOf(ref);
                    get.arrivedAt = trace.tick();
                    get.servedAt = trace.tick();
                    for (int k = 0; k < length; k++)
                    {
                        final Trace.Leg leg = trace.leg("get response", id, from);
                        synchronized (trace)
                        {
                            get.segments.add(leg);
                        }
                        post(from, Type.GET_RESPONSE, ref, window[address + k], 0, register(leg));
                    }
                }
                case GET_RESPONSE ->
                {
                    applied(ref);
                    final int[] get = pending.get(address);
                    reads += value;
                    if (++get[2] == get[1])
                    {
                        pending.remove(address);
                        gets.get(address).doneAt = trace.tick();
                        agent.completed(get[0]);
                    }
                }
                case CONTROL -> agent.receive(new ControlMessage(ControlMessage.Kind.values()[address], from, id,
                    (int) value));
                case FIN -> finsIn++;
                default -> throw new IllegalStateException(type.toString());
            }
        }

        @Override
        public void send(final ControlMessage message)
        {
            sent = true;
            trace.sent(message);
            post(message.target(), Type.CONTROL, message.kind().ordinal(), message.wave(), 0, 0);
        }

        @Override
        public void checkpoint(final int wave)
        {
            trace.checkpoint(id, wave);
            accumulatedAt.add(accumulated);
            countersAt.add(Arrays.stream(window, Workload.CONSTANTS, Workload.CONSTANTS + Workload.COUNTERS).sum());
        }

        /**
         * Sends one message; {@code ref} is the trace's index of a write's leg or a request's get, and a response
         * carries its get in {@code address} and its leg in {@code ref}.
         */
        private void post(final int target, final Type type, final int address, final long value, final int length,
            final int ref)
        {
            final ByteBuffer out = ByteBuffer.allocateDirect(24);
            out.putInt(type.ordinal()).putInt(address).putLong(value).putInt(length).putInt(ref);
            transport.send(target, Header.of(TAG), out.flip());
        }

        private int register(final Trace.Leg leg)
        {
            synchronized (trace)
            {
                return trace.legs.indexOf(leg);
            }
        }

        private void applied(final int legIndex)
        {
            final Trace.Leg leg;
            synchronized (trace)
            {
                leg = trace.legs.get(legIndex);
            }
            leg.appliedAt = trace.tick();
        }

        private Trace.Get getOf(final int index)
        {
            synchronized (trace)
            {
                return trace.gets.get(index);
            }
        }
    }
}
