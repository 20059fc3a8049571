package dev.spillway.rdma;

import java.time.Duration;

/** The contract on ranks in one JVM. */
final class InProcessTransportTest extends TransportContract
{
    private InProcessFabric fabric;

    @Override
    Transport[] connect(final int ranks, final Duration operationTimeout)
    {
        fabric = new InProcessFabric(ranks, operationTimeout);
        final Transport[] group = new Transport[ranks];
        for (int r = 0; r < ranks; r++)
        {
            group[r] = fabric.transport(r);
        }
        return group;
    }

    @Override
    void lose(final Transport[] group, final int victim)
    {
        group[victim].close();
    }

    @Override
    void cutOff(final Transport[] group, final int victim)
    {
        fabric.kill(victim, "cut off by the test");
    }

    @Override
    Transport rejoin(final Transport[] group, final int rank, final int incarnation)
    {
        return fabric.revive(rank, incarnation);
    }
}
