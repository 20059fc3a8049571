package dev.spillway.rdma;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import static dev.spillway.rdma.Collectives.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the rendezvous decides from incarnations: a fresh start with one incarnation everywhere, or a rejoin. */
final class UcxRejoinTest
{
    private static final Duration TIMEOUT = TransportContract.TIMEOUT;

    private final List<Transport> opened = new ArrayList<>();

    @BeforeAll
    static void ucx()
    {
        Ucx.requireUcx();
    }

    @AfterEach
    void closeAll()
    {
        opened.forEach(Transport::close);
    }

    @Test
    void aGlobalRestartRendezvousesAfreshWithTheSameHigherIncarnationEverywhere()
    {
        final InetSocketAddress coordinator = Ucx.freeLoopbackAddress();
        final List<TransportConfig> configs = new ArrayList<>();
        for (int r = 0; r < 3; r++)
        {
            configs.add(Ucx.config(r, 3, coordinator, TIMEOUT).incarnation(3).build());
        }
        final Transport[] t = keep(Ucx.open(configs));
        for (final Transport rank : t)
        {
            assertFalse(((UcxTransport)rank).rejoined(), "rank " + rank.rank() + " thinks it rejoined");
            for (int r = 0; r < 3; r++)
            {
                assertEquals(3, rank.incarnation(r));
            }
        }
        final CompletableFuture<Message> r = t[2].receive(1, 9, ByteBuffer.allocateDirect(8));
        await(t[1].send(2, Header.of(9), ByteBuffer.allocateDirect(8)));
        assertEquals(new Header(1, 9, 0, 0, 0L, 3), await(r).header());
    }

    @Test
    void aRankOfAnotherIncarnationIsRefusedAtTheStartAndTheJobStillForms() throws Exception
    {
        final InetSocketAddress coordinator = Ucx.freeLoopbackAddress();
        final CompletableFuture<UcxTransport> zero = CompletableFuture.supplyAsync(() ->
            UcxTransport.open(Ucx.config(0, 2, coordinator, TIMEOUT).incarnation(2).build()), runner());
        try (LogLines log = new LogLines())
        {
            final TransportException refused = assertThrows(TransportException.class,
                () -> UcxTransport.open(Ucx.config(1, 2, coordinator, TIMEOUT).incarnation(1).build()));
            final String why = "incarnation 1 is not the coordinator's incarnation 2";
            assertTrue(refused.getMessage().contains(why), refused.getMessage());
            log.await("the refusal at the coordinator", l -> l.contains("rejected connection") && l.contains(why), 1,
                TIMEOUT);
        }
        keep(UcxTransport.open(Ucx.config(1, 2, coordinator, TIMEOUT).incarnation(2).build()));
        assertEquals(2, keep(zero.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).incarnation(1));
    }

    @Test
    void aRejoinedRankLearnsWhoIsLostAndHearsTheirRejoinLater() throws Exception
    {
        final InetSocketAddress coordinator = Ucx.freeLoopbackAddress();
        final List<TransportConfig> configs = new ArrayList<>();
        for (int r = 0; r < 3; r++)
        {
            configs.add(Ucx.config(r, 3, coordinator, TIMEOUT).build());
        }
        final Transport[] t = keep(Ucx.open(configs));
        final TransportContract.Heard zero = new TransportContract.Heard();
        t[0].addPeerListener(zero);
        t[2].close();
        assertEquals(2, zero.next("rank 0 to hear that rank 2 was lost").rank());
        t[1].close();
        assertEquals(1, zero.next("rank 0 to hear that rank 1 was lost").rank());
        final UcxTransport one = keep(UcxTransport.open(Ucx.config(1, 3, coordinator, TIMEOUT).incarnation(1).build()));
        assertTrue(one.rejoined());
        assertNotNull(one.lostReason(2), "the rejoined rank does not know that rank 2 is lost");
        assertEquals(0, one.incarnation(2));
        final TransportContract.Heard heard = new TransportContract.Heard();
        one.addPeerListener(heard);
        final UcxTransport two = keep(UcxTransport.open(Ucx.config(2, 3, coordinator, TIMEOUT).incarnation(4).build()));
        assertEquals(PeerEvent.rejoined(2, 4), heard.next("the rejoined rank 1 to hear rank 2 rejoin"));
        final CompletableFuture<Message> r = one.receive(2, 11, ByteBuffer.allocateDirect(8));
        await(two.send(1, Header.of(11), ByteBuffer.allocateDirect(8)));
        assertEquals(new Header(2, 11, 0, 0, 0L, 4), await(r).header());
    }

    private <T extends Transport> T keep(final T transport)
    {
        opened.add(transport);
        return transport;
    }

    private Transport[] keep(final Transport[] group)
    {
        opened.addAll(List.of(group));
        return group;
    }

    /** A thread per task: the common pool may have a single thread on a small machine. */
    private static Executor runner()
    {
        return task ->
        {
            final Thread thread = new Thread(task, "rejoin-test-rank-0");
            thread.setDaemon(true);
            thread.start();
        };
    }
}
