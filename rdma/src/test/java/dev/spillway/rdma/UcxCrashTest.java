package dev.spillway.rdma;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A peer in a child JVM is killed with SIGKILL in the middle of transfers towards it. */
final class UcxCrashTest
{
    static final int PEER_WINDOW = 64 << 20;
    static final Duration FAILURE_TIMEOUT = Duration.ofSeconds(2);

    @BeforeAll
    static void ucx()
    {
        Ucx.requireUcx();
    }

    static Process startPeer(final InetSocketAddress coordinator, final int windowBytes, final boolean errorHandling,
        final Path log) throws Exception
    {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final ProcessBuilder pb = new ProcessBuilder(List.of(java, "-Xmx256m", "-cp",
            System.getProperty("java.class.path"), PeerProcess.class.getName(), Integer.toString(windowBytes)));
        final Map<String, String> env = pb.environment();
        env.put(TransportConfig.RANK_ENV, "1");
        env.put(TransportConfig.SIZE_ENV, "2");
        env.put(TransportConfig.COORDINATOR_ENV, "127.0.0.1:" + coordinator.getPort());
        env.put(TransportConfig.SECRET_ENV, Ucx.SECRET);
        env.put("SPILLWAY_UCX_ERROR_HANDLING", Boolean.toString(errorHandling));
        env.put("UCX_NET_DEVICES", "lo");
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        return pb.start();
    }

    @ParameterizedTest(name = "peer error handling {0}")
    @ValueSource(booleans = {true, false})
    void killedPeerIsReportedByRankWithinTheBoundAndLocalDataSurvives(final boolean errorHandling) throws Exception
    {
        final InetSocketAddress coordinator = Ucx.freeLoopbackAddress();
        final Path log = Files.createTempFile("spillway-peer", ".log");
        final Process peer = startPeer(coordinator, PEER_WINDOW, errorHandling, log);
        try (UcxTransport t = UcxTransport.open(Ucx.config(0, 2, coordinator, Duration.ofSeconds(30))
            .failureTimeout(FAILURE_TIMEOUT).peerErrorHandling(errorHandling).build());
            Window mine = t.createWindow("survivor", 1 << 20))
        {
            final ByteBuffer local = mine.buffer();
            for (int i = 0; i < local.capacity(); i += 8)
            {
                local.putLong(i, i * 31L + 7);
            }
            final long before = crc(local);
            final WindowHandle[] handles = Collectives.exchange(t, 77, mine);
            final ByteBuffer src = TransportContract.random(PEER_WINDOW, 9);
            final long srcBefore = crc(src);
            t.put(handles[1], 0, src);
            Collectives.await(t.flush(1));

            final CompletableFuture<Message> waiting = t.receive(1, 5, ByteBuffer.allocateDirect(8));
            for (int i = 0; i < 4; i++)
            {
                t.put(handles[1], 0, src);
            }
            // Kill at once, not after a guessed delay: a fast machine could finish 256 MiB in a few milliseconds.
            final CompletableFuture<Void> flush = t.flush(1);
            final boolean inFlight = !flush.isDone();
            final long killed = System.nanoTime();
            peer.destroyForcibly();
            assertTrue(peer.waitFor(10, TimeUnit.SECONDS), "the peer did not die");

            final PeerFailedException receiveFailure = assertThrows(PeerFailedException.class,
                () -> Collectives.await(waiting));
            final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
            assertEquals(1, receiveFailure.rank());
            assertTrue(receiveFailure.getMessage().contains("rank 1"), receiveFailure.getMessage());
            assertTrue(ms < FAILURE_TIMEOUT.toMillis() + 3_000, "the loss took " + ms + " ms");
            // Over TCP the puts are in flight until the peer acknowledges them; over shared memory each put is a
            // copy into the peer's mapped window made inside put(), so its flush completes at once on this thread.
            assertEquals(errorHandling, inFlight, errorHandling ? "the flush finished before the kill: the test " +
                "did not kill mid-transfer" : "a flush of shared-memory puts was still in flight");
            String flushOutcome;
            try
            {
                Collectives.await(flush);
                flushOutcome = "completed into the dead peer's still-mapped shared memory";
            }
            catch (final PeerFailedException ex)
            {
                assertEquals(1, ex.rank());
                flushOutcome = ex.getMessage();
            }
            System.out.println("UcxCrashTest (peer error handling " + errorHandling + "): loss surfaced " + ms +
                " ms after SIGKILL; " + receiveFailure.getMessage() + "; in-flight flush: " + flushOutcome);
            if (errorHandling)
            {
                assertTrue(flushOutcome.contains("rank 1 is lost"), "over TCP the in-flight flush must fail");
            }
            t.put(handles[1], 0, src);
            assertEquals(1, assertThrows(PeerFailedException.class, () -> Collectives.await(t.flush(1))).rank());
            assertEquals(before, crc(local), "the survivor's window changed");
            assertEquals(srcBefore, crc(src), "the survivor's source buffer changed");
            assertThrows(PeerFailedException.class, () -> Collectives.await(t.send(1, Header.of(1), src)));
        }
        finally
        {
            peer.destroyForcibly();
            Files.deleteIfExists(log);
        }
    }

    static long crc(final ByteBuffer b)
    {
        final CRC32C crc = new CRC32C();
        crc.update(b.duplicate().clear());
        return crc.getValue();
    }

}
