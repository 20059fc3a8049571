package dev.spillway.rdma;

import java.time.Duration;

/** The contract on ranks in one JVM. */
final class InProcessTransportTest extends TransportContract
{
    @Override
    Transport[] connect(final int ranks, final Duration operationTimeout)
    {
        final InProcessFabric fabric = new InProcessFabric(ranks, operationTimeout);
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
}
