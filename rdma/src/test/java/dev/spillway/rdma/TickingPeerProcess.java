package dev.spillway.rdma;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A rank in a child JVM for {@link UcxZombieTest}, configured from the SPILLWAY_* environment (its failure timeout
 * from {@code SPILLWAY_TEST_FAILURE_TIMEOUT_MS}): sends a tick (its incarnation and a count) to ranks 0 and 2 every
 * few milliseconds, whatever becomes of them, and answers their pings. Ends when its standard input closes (the test
 * JVM is gone) or it is killed.
 */
public final class TickingPeerProcess
{
    static final int TICK = 5;
    static final int PING = 6;
    static final int PONG = 7;
    static final int[] PEERS = {0, 2};
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(3);

    private TickingPeerProcess()
    {
    }

    public static void main(final String[] args)
    {
        final TransportConfig config = TransportConfig.fromEnvironment(System.getenv())
            .peerErrorHandling(!"false".equals(System.getenv("SPILLWAY_UCX_ERROR_HANDLING")))
            .failureTimeout(Duration.ofMillis(Long.parseLong(System.getenv("SPILLWAY_TEST_FAILURE_TIMEOUT_MS"))))
            .operationTimeout(Duration.ofMinutes(5))
            .build();
        final Thread watchdog = new Thread(TickingPeerProcess::exitWithParent, "parent-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        final UcxTransport transport = UcxTransport.open(config);
        for (final int peer : PEERS)
        {
            final Thread answering = new Thread(() -> answer(transport, peer), "answer-" + peer);
            answering.setDaemon(true);
            answering.start();
        }
        System.out.println("rank " + config.rank() + " incarnation " + config.incarnation() + " ready");
        boolean toldLost = false;
        for (int count = 0; ; count++)
        {
            final String selfLost = transport.selfLostReason();
            if (!toldLost && selfLost != null)
            {
                toldLost = true;
                System.out.println("this incarnation was declared lost: " + selfLost);
            }
            final ByteBuffer tick = ByteBuffer.allocateDirect(8).putInt(0, config.incarnation()).putInt(4, count);
            final CompletableFuture<?>[] sends = new CompletableFuture<?>[PEERS.length];
            for (int i = 0; i < PEERS.length; i++)
            {
                sends[i] = transport.send(PEERS[i], Header.of(TICK), tick);
            }
            CompletableFuture.allOf(sends).handle((v, t) -> null).join(); // a lost peer fails its send: go on
            LockSupport.parkNanos(TICK_NANOS);
        }
    }

    /** Echoes every ping of {@code peer} until it is lost. */
    private static void answer(final Transport transport, final int peer)
    {
        final ByteBuffer ping = ByteBuffer.allocateDirect(8);
        try
        {
            while (true)
            {
                Collectives.await(transport.receive(peer, PING, ping));
                Collectives.await(transport.send(peer, Header.of(PONG), ping));
            }
        }
        catch (final TransportException ex)
        {
            System.out.println("no longer answering rank " + peer + ": " + ex.getMessage());
        }
    }

    private static void exitWithParent()
    {
        try
        {
            while (System.in.read() >= 0)
            {
                // Nothing is sent; end of stream means the test JVM is gone.
            }
        }
        catch (final IOException ex)
        {
            // As gone.
        }
        System.exit(0);
    }
}
