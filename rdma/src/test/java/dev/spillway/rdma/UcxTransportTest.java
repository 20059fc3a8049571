package dev.spillway.rdma;

import org.junit.jupiter.api.BeforeAll;

import java.time.Duration;

/** The contract on UCX ranks in this JVM with peer error handling (TCP over loopback). */
final class UcxTransportTest extends TransportContract
{
    @BeforeAll
    static void ucx()
    {
        Ucx.requireUcx();
    }

    @Override
    Transport[] connect(final int ranks, final Duration operationTimeout)
    {
        return Ucx.connect(ranks, operationTimeout, true);
    }

    @Override
    void lose(final Transport[] group, final int victim)
    {
        group[victim].close();
    }
}
