package dev.spillway.rdma;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.ServerSocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CoordinatorPortsTest
{
    @Test
    void aPickedPortIsFreeLoopbackAndBelowTheEphemeralRange() throws Exception
    {
        final int ephemeralLow = CoordinatorPorts.ephemeralLow();
        for (int i = 0; i < 20; i++)
        {
            final InetSocketAddress picked = CoordinatorPorts.freeLoopback();
            assertTrue(picked.getAddress().isLoopbackAddress(), picked.toString());
            assertTrue(picked.getPort() < ephemeralLow, picked + " lies in the ephemeral range from " + ephemeralLow);
            try (ServerSocket bound = new ServerSocket(picked.getPort(), 1, picked.getAddress()))
            {
                assertEquals(picked.getPort(), bound.getLocalPort());
            }
        }
    }
}
