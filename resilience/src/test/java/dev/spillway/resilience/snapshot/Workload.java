package dev.spillway.resilience.snapshot;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A program of one-sided operations for the simulator, one list per rank, whose final state does not depend on the
 * schedule: gets read a constant region, accumulates add to counters, and each source puts into its own slot of a
 * target's window, so the last of its puts there wins (FIFO). {@link #finalWindow} and {@link #finalReads} compute
 * that state from the program alone.
 */
record Workload(Kind kind, List<List<Workload.Op>> programs)
{
    /** Words of the constant region that gets read; also the longest get. */
    static final int CONSTANTS = 8;
    static final int COUNTERS = 4;

    enum Kind
    {
        PUT_HEAVY(7), GET_HEAVY(3), MIXED(5), SEGMENTED_GETS(5);

        /** Out of ten operations, how many write. */
        final int writes;

        Kind(final int writes)
        {
            this.writes = writes;
        }
    }

    enum Type
    {
        PUT, ACCUMULATE, GET
    }

    /** One operation towards {@code target}'s window: {@code length} words at {@code address}, or one word. */
    record Op(Type type, int target, int address, long value, int length)
    {
        static Op put(final int source, final int target, final long value)
        {
            return new Op(Type.PUT, target, CONSTANTS + COUNTERS + source, value, 1);
        }

        static Op accumulate(final int target, final int counter, final long amount)
        {
            return new Op(Type.ACCUMULATE, target, CONSTANTS + counter, amount, 1);
        }

        static Op get(final int target, final int address, final int length)
        {
            return new Op(Type.GET, target, address, 0, length);
        }
    }

    static Workload draw(final Kind kind, final int ranks, final SplittableRandom random)
    {
        final List<List<Op>> programs = new ArrayList<>();
        for (int r = 0; r < ranks; r++)
        {
            final List<Op> program = new ArrayList<>();
            final int length = 4 + random.nextInt(9);
            for (int i = 0; i < length; i++)
            {
                final int target = (r + 1 + random.nextInt(ranks - 1)) % ranks;
                if (random.nextInt(10) < kind.writes)
                {
                    program.add(random.nextBoolean() ? Op.put(r, target, 1_000L * r + i + 1)
                        : Op.accumulate(target, random.nextInt(COUNTERS), 1 + random.nextInt(9)));
                }
                else
                {
                    final int words = kind == Kind.SEGMENTED_GETS ? 2 + random.nextInt(CONSTANTS - 1) : 1;
                    program.add(Op.get(target, random.nextInt(CONSTANTS - words + 1), words));
                }
            }
            programs.add(program);
        }
        return new Workload(kind, programs);
    }

    int ranks()
    {
        return programs.size();
    }

    int windowWords()
    {
        return CONSTANTS + COUNTERS + ranks();
    }

    long[] initialWindow(final int rank)
    {
        final long[] window = new long[windowWords()];
        for (int i = 0; i < CONSTANTS; i++)
        {
            window[i] = 100L * rank + i + 1;
        }
        return window;
    }

    long[] finalWindow(final int rank)
    {
        final long[] window = initialWindow(rank);
        for (final List<Op> program : programs)
        {
            for (final Op op : program)
            {
                if (op.target() == rank && op.type() == Type.PUT)
                {
                    window[op.address()] = op.value();
                }
                else if (op.target() == rank && op.type() == Type.ACCUMULATE)
                {
                    window[op.address()] += op.value();
                }
            }
        }
        return window;
    }

    /** @return the sum of every word {@code rank}'s gets read. */
    long finalReads(final int rank)
    {
        long sum = 0;
        for (final Op op : programs.get(rank))
        {
            if (op.type() == Type.GET)
            {
                final long[] window = initialWindow(op.target());
                for (int k = 0; k < op.length(); k++)
                {
                    sum += window[op.address() + k];
                }
            }
        }
        return sum;
    }

    @Override
    public String toString()
    {
        return kind + " on " + ranks() + " ranks " + programs;
    }
}
