package dev.spillway.rdma;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The contract on UCX ranks in this JVM. Every rank but 0 reaches the coordinator through a {@link ControlProxy}, so
 * that a test can cut it off the control plane while its transport keeps running: a true zombie, whose UCX
 * connections to the other ranks stay up. A rejoining rank connects to the coordinator directly.
 */
abstract class UcxTransportContract extends TransportContract
{
    private final boolean peerErrorHandling;
    private final Map<Integer, ControlProxy> proxies = new HashMap<>();
    private InetSocketAddress coordinator;
    private Duration operationTimeout;

    UcxTransportContract(final boolean peerErrorHandling)
    {
        this.peerErrorHandling = peerErrorHandling;
    }

    @BeforeAll
    static void ucx()
    {
        Ucx.requireUcx();
    }

    @Override
    Transport[] connect(final int ranks, final Duration timeout)
    {
        for (int attempt = 1; ; attempt++)
        {
            try
            {
                return connectOnce(ranks, timeout);
            }
            catch (final AssertionError e)
            {
                // The port found free may be taken before the coordinator binds it: then another port.
                if (attempt == 3 || !String.valueOf(e.getMessage()).contains("Address already in use"))
                {
                    throw e;
                }
            }
        }
    }

    private Transport[] connectOnce(final int ranks, final Duration timeout)
    {
        coordinator = Ucx.freeLoopbackAddress();
        operationTimeout = timeout;
        final List<TransportConfig> configs = new ArrayList<>();
        for (int r = 0; r < ranks; r++)
        {
            final InetSocketAddress via = r == 0 ? coordinator : proxy(r).address();
            configs.add(Ucx.config(r, ranks, via, timeout).peerErrorHandling(peerErrorHandling).build());
        }
        return Ucx.open(configs);
    }

    /** @return a new proxy for rank {@code r}, closed after the test, after the transports. */
    private ControlProxy proxy(final int r)
    {
        final ControlProxy proxy = new ControlProxy(coordinator);
        proxies.put(r, proxy);
        closeAfterTest(proxy);
        return proxy;
    }

    @Override
    void lose(final Transport[] group, final int victim)
    {
        group[victim].close();
    }

    @Override
    void cutOff(final Transport[] group, final int victim)
    {
        proxies.get(victim).cut();
    }

    @Override
    Transport rejoin(final Transport[] group, final int rank, final int incarnation)
    {
        return UcxTransport.open(Ucx.config(rank, group.length, coordinator, operationTimeout)
            .peerErrorHandling(peerErrorHandling).incarnation(incarnation).build());
    }

    /** @return a rejoin of {@code rank} as {@code incarnation} that cannot prove the job secret. */
    private Runnable rejoinWithoutTheSecret(final Transport[] group, final int rank, final int incarnation)
    {
        final TransportConfig impostor = Ucx.config(rank, group.length, coordinator, operationTimeout)
            .peerErrorHandling(peerErrorHandling).incarnation(incarnation)
            .secret("not-the-job-secret-at-all".getBytes(StandardCharsets.UTF_8)).build();
        return () -> UcxTransport.open(impostor).close();
    }

    @Test
    void aRejoinWithoutTheSecretIsRefusedAndLogged() throws Exception
    {
        final Transport[] t = group(TIMEOUT);
        final Runnable impostor = rejoinWithoutTheSecret(t, 1, 1);
        final Heard[] heard = listen(t);
        lose(t, 1);
        heard[0].next("rank 0 to hear that rank 1 was lost");
        try (LogLines log = new LogLines())
        {
            assertThrows(AuthenticationException.class, impostor::run);
            log.await("the refused proof", l -> l.contains("did not prove the job secret"), 1, TIMEOUT);
        }
        assertNotNull(t[0].lostReason(1), "a rank without the secret was admitted");
        rejoined(t, 1, 1);
        assertEquals(PeerEvent.rejoined(1, 1), heard[0].next("rank 0 to hear the genuine rank 1 rejoin"));
    }
}
