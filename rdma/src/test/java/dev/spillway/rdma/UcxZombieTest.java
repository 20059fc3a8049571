package dev.spillway.rdma;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

import static dev.spillway.rdma.Collectives.await;
import static dev.spillway.rdma.TickingPeerProcess.PING;
import static dev.spillway.rdma.TickingPeerProcess.PONG;
import static dev.spillway.rdma.TickingPeerProcess.TICK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A rank process paused with SIGSTOP is declared lost, a new incarnation rejoins in its place, and the old process,
 * continued with SIGCONT, cannot disturb the job: ranks 0 and 2 (in this JVM) drop and count what it sends, and
 * the new rank 1 still works. Rank 1 runs {@link TickingPeerProcess} in child JVMs.
 */
@Tag("process")
final class UcxZombieTest
{
    private static final Duration FAILURE_TIMEOUT = Duration.ofSeconds(2);
    /** Safety net for every wait on an event: sized for a machine ten times slower. */
    private static final Duration SAFETY_NET = TransportContract.TIMEOUT;

    @BeforeAll
    static void ucx()
    {
        Ucx.requireUcx();
    }

    @ParameterizedTest(name = "peer error handling {0}")
    @ValueSource(booleans = {true, false})
    void aContinuedOldIncarnationIsFencedWhileItsSuccessorWorks(final boolean errorHandling) throws Exception
    {
        final InetSocketAddress coordinator = Ucx.freeLoopbackAddress();
        final List<Process> children = new ArrayList<>();
        final List<Transport> survivors = new ArrayList<>();
        final Path log = Files.createTempFile("spillway-zombie", ".log");
        try
        {
            final CompletableFuture<Transport> zero = open(0, coordinator, errorHandling);
            final CompletableFuture<Transport> two = open(2, coordinator, errorHandling);
            final Process old = start(coordinator, 0, errorHandling, log);
            children.add(old);
            final Transport[] t = {joined(zero, "rank 0"), null, joined(two, "rank 2")};
            survivors.add(t[0]);
            survivors.add(t[2]);
            final TransportContract.Heard[] heard =
                {new TransportContract.Heard(), null, new TransportContract.Heard()};
            for (final int s : TickingPeerProcess.PEERS)
            {
                t[s].addPeerListener(heard[s]);
                assertEquals(0, tick(t[s]), "rank " + s + " got a tick of another incarnation");
            }

            signal(old, "STOP");
            final long stopped = System.nanoTime();
            for (final int s : TickingPeerProcess.PEERS)
            {
                final PeerEvent lost = heard[s].next("rank " + s + " to declare the stopped rank 1 lost");
                assertEquals(PeerEvent.Kind.LOST, lost.kind());
                assertEquals(0, lost.incarnation());
            }
            final long detectedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped);

            children.add(start(coordinator, 1, errorHandling, log));
            for (final int s : TickingPeerProcess.PEERS)
            {
                assertEquals(PeerEvent.rejoined(1, 1), heard[s].next("rank " + s + " to hear rank 1 rejoin"));
                assertEquals(1, tick(t[s]), "rank " + s + " got a tick of the old incarnation");
                ping(t[s], 100 + s);
            }
            // What the old incarnation sent before it stopped is drained by now; from here on, only it adds.
            final long before = fenced(t);

            signal(old, "CONT");
            final long deadline = System.nanoTime() + SAFETY_NET.toNanos();
            while (fenced(t) == before)
            {
                if (System.nanoTime() - deadline > 0)
                {
                    fail("waited " + SAFETY_NET + " for ranks 0 and 2 to drop a message of the continued old rank 1;" +
                        " its output:\n" + Files.readString(log));
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            assertTrue(old.isAlive(), "the old rank 1 ended instead of sending:\n" + Files.readString(log));
            // Rank 0 told it why before closing its control connection: a zombie can say what happened to it.
            while (!Files.readString(log).contains("this incarnation was declared lost: no heartbeat for"))
            {
                if (System.nanoTime() - deadline > 0)
                {
                    fail("waited " + SAFETY_NET + " for the continued old rank 1 to learn that it was declared lost;" +
                        " its output:\n" + Files.readString(log));
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            for (int i = 0; i < 20; i++)
            {
                for (final int s : TickingPeerProcess.PEERS)
                {
                    assertEquals(1, tick(t[s]), "rank " + s + " got a tick of the continued old incarnation");
                }
            }
            for (final int s : TickingPeerProcess.PEERS)
            {
                ping(t[s], 200 + s);
            }
            System.out.println("UcxZombieTest (peer error handling " + errorHandling + "): rank 1 lost " +
                detectedMs + " ms after SIGSTOP (failure timeout " + FAILURE_TIMEOUT.toMillis() + " ms); after " +
                "SIGCONT ranks 0 and 2 dropped " + (fenced(t) - before) + " of its messages so far");
        }
        finally
        {
            children.forEach(Process::destroyForcibly);
            survivors.forEach(Transport::close);
            Files.deleteIfExists(log);
        }
    }

    /** @return the incarnation in the next tick rank 1 sent to {@code t}, checked against its header. */
    private static int tick(final Transport t)
    {
        final ByteBuffer tick = ByteBuffer.allocateDirect(8);
        final Message m = await(t.receive(1, TICK, tick));
        assertEquals(m.header().incarnation(), tick.getInt(0), "the header and the payload name other incarnations");
        return m.header().incarnation();
    }

    /** A ping from {@code t} to rank 1 and its echo, which the current incarnation sends. */
    private static void ping(final Transport t, final int value)
    {
        final ByteBuffer pong = ByteBuffer.allocateDirect(8);
        final CompletableFuture<Message> echo = t.receive(1, PONG, pong);
        await(t.send(1, Header.of(PING), ByteBuffer.allocateDirect(8).putInt(0, value)));
        assertEquals(t.incarnation(1), await(echo).header().incarnation());
        assertEquals(value, pong.getInt(0));
    }

    private static long fenced(final Transport[] t)
    {
        return t[0].fencedMessages() + t[2].fencedMessages();
    }

    private static CompletableFuture<Transport> open(final int rank, final InetSocketAddress coordinator,
        final boolean errorHandling)
    {
        final TransportConfig config = Ucx.config(rank, 3, coordinator, SAFETY_NET).failureTimeout(FAILURE_TIMEOUT)
            .peerErrorHandling(errorHandling).build();
        final CompletableFuture<Transport> opened = new CompletableFuture<>();
        final Thread opener = new Thread(() ->
        {
            try
            {
                opened.complete(UcxTransport.open(config));
            }
            catch (final Throwable t)
            {
                opened.completeExceptionally(t);
            }
        }, "open-rank-" + rank);
        opener.setDaemon(true);
        opener.start();
        return opened;
    }

    private static Transport joined(final CompletableFuture<Transport> opening, final String what) throws Exception
    {
        try
        {
            return opening.get(Ucx.CONNECT_TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS);
        }
        catch (final TimeoutException ex)
        {
            throw new AssertionError(what + " did not finish the rendezvous within " +
                Ucx.CONNECT_TIMEOUT.multipliedBy(2), ex);
        }
    }

    /** Starts rank 1 as {@code incarnation} in a child JVM, appending its output to {@code log}. */
    private static Process start(final InetSocketAddress coordinator, final int incarnation,
        final boolean errorHandling, final Path log) throws Exception
    {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final ProcessBuilder pb = new ProcessBuilder(List.of(java, "-Xmx256m", "-cp",
            System.getProperty("java.class.path"), TickingPeerProcess.class.getName()));
        final Map<String, String> env = pb.environment();
        env.put(TransportConfig.RANK_ENV, "1");
        env.put(TransportConfig.SIZE_ENV, "3");
        env.put(TransportConfig.INCARNATION_ENV, Integer.toString(incarnation));
        env.put(TransportConfig.COORDINATOR_ENV, "127.0.0.1:" + coordinator.getPort());
        env.put(TransportConfig.SECRET_ENV, Ucx.SECRET);
        env.put("SPILLWAY_UCX_ERROR_HANDLING", Boolean.toString(errorHandling));
        env.put("SPILLWAY_TEST_FAILURE_TIMEOUT_MS", Long.toString(FAILURE_TIMEOUT.toMillis()));
        env.put("UCX_NET_DEVICES", "lo");
        pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        return pb.start();
    }

    /** Sends {@code signal} (STOP, CONT) to {@code process} with {@code kill}. */
    private static void signal(final Process process, final String signal) throws Exception
    {
        final Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(process.pid())).inheritIO()
            .start();
        if (!kill.waitFor(SAFETY_NET.toSeconds(), TimeUnit.SECONDS) || kill.exitValue() != 0)
        {
            throw new AssertionError("kill -s " + signal + " " + process.pid() + " failed");
        }
    }
}
