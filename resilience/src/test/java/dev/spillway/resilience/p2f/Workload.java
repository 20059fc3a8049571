package dev.spillway.resilience.p2f;

import java.util.List;

/**
 * A send-deterministic program for the simulator: per rank a list of operations, the epoch each rank starts in
 * (its cluster's offset) and where checkpoints are taken.
 */
record Workload(String name, List<List<Workload.Op>> programs, int[] initialEpochs, CutPlan cuts)
{
    enum Kind
    {
        SEND, RECV, RECV_ANY
    }

    /** One operation: send to, or receive from, {@code peer}; a {@code RECV_ANY} takes the first arrival. */
    record Op(Kind kind, int peer)
    {
        static Op send(final int peer)
        {
            return new Op(Kind.SEND, peer);
        }

        static Op recv(final int peer)
        {
            return new Op(Kind.RECV, peer);
        }

        static Op recvAny()
        {
            return new Op(Kind.RECV_ANY, -1);
        }
    }

    /**
     * Whether a rank takes a checkpoint before its operation at {@code pc}: a function of the position only, so a
     * rank that re-executes cuts where it cut before (Spillway's aligned schedules have this property).
     */
    interface CutPlan
    {
        boolean cutBefore(int rank, int pc);
    }

    int ranks()
    {
        return programs.size();
    }

    int operations()
    {
        int ops = 0;
        for (final List<Op> program : programs)
        {
            ops += program.size();
        }
        return ops;
    }

    @Override
    public String toString()
    {
        return name;
    }
}
