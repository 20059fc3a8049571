package dev.spillway.rdma;

import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Local processes that connect to the coordinator without being ranks (silent, short-lived, too many) neither stall
 * the rendezvous nor flood the log. These run the {@link ControlPlane} alone, with made-up address blobs.
 */
final class RendezvousAbuseTest
{
    /** Safety net for anything a healthy run does in milliseconds; sized for a machine 10x slower than a laptop. */
    private static final Duration SAFETY_NET = Duration.ofSeconds(30);
    private static final int GREETING_BYTES = 4 + 4 + 32;
    private static final Pattern ONE = Pattern.compile(
        "spillway-rdma: coordinator \\(rank 0\\) rejected connection from /127\\.0\\.0\\.1:\\d+: (.+)");
    private static final Pattern MORE = Pattern.compile(
        "spillway-rdma: coordinator \\(rank 0\\) rejected (\\d+) more connections? in the last \\d+ s: (.+)");
    private static final Pattern CUT = Pattern.compile(
        "spillway-rdma: coordinator \\(rank 0\\) closed (\\d+) connections? still in the handshake when it " +
            "stopped listening");

    @Test
    void silentConnectionsDoNotStallTheRendezvous() throws Exception
    {
        final InetSocketAddress coordinator = Ucx.freeLoopbackAddress();
        final CompletableFuture<ControlPlane> zero = open(config(0, coordinator).build());
        final List<Socket> silent = new ArrayList<>();
        try
        {
            for (int i = 0; i < 8; i++)
            {
                final Socket socket = connect(coordinator);
                silent.add(socket);
                assertTrue(greeted(socket), "silent connection " + i + " was closed instead of greeted");
            }
            final CompletableFuture<ControlPlane> one = open(config(1, coordinator).build());
            try (ControlPlane rank0 = join(zero, "rank 0"); ControlPlane rank1 = join(one, "rank 1"))
            {
                assertArrayEquals(blob(1), rank0.roster().blob(1));
                assertArrayEquals(blob(0), rank1.roster().blob(0));
            }
        }
        finally
        {
            closeAll(silent);
        }
    }

    @Test
    void aFloodOfShortConnectionsLogsAFewLinesEachNamingItsCause() throws Exception
    {
        final int flood = 2000;
        final InetSocketAddress coordinator = Ucx.freeLoopbackAddress();
        final List<String> lines;
        final long floodMs;
        try (LogLines log = new LogLines())
        {
            final CompletableFuture<ControlPlane> zero = open(config(0, coordinator).build());
            final long start = System.nanoTime();
            for (int i = 0; i < flood; i++)
            {
                connect(coordinator).close();
            }
            final CompletableFuture<ControlPlane> one = open(config(1, coordinator).build());
            join(zero, "rank 0").close();
            join(one, "rank 1").close();
            floodMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            lines = log.lines().stream().filter(l -> l.startsWith("spillway-rdma: coordinator")).toList();
        }
        final long bound = (RejectionLog.VERBATIM_LINES + 1) * (floodMs / RejectionLog.INTERVAL.toMillis() + 1) + 2;
        assertTrue(lines.size() <= bound, lines.size() + " log lines for " + flood + " connections in " + floodMs +
            " ms, at most " + bound + " expected: " + lines.subList(0, Math.min(20, lines.size())));
        long accounted = 0;
        for (final String line : lines)
        {
            assertTrue(!line.contains("null"), "a line without its cause: " + line);
            final Matcher one = ONE.matcher(line);
            final Matcher more = MORE.matcher(line);
            final Matcher cut = CUT.matcher(line);
            if (one.matches())
            {
                accounted++;
            }
            else if (more.matches())
            {
                accounted += Long.parseLong(more.group(1));
            }
            else if (cut.matches())
            {
                accounted += Long.parseLong(cut.group(1));
            }
            else
            {
                fail("unexpected log line: " + line);
            }
        }
        assertTrue(accounted >= flood, "the log accounts for " + accounted + " of " + flood + " connections: " +
            lines);
    }

    @Test
    void connectionsOverTheCapAreClosedAtOnceAndATurnedAwayRankRetries() throws Exception
    {
        final int cap = 3;
        final int extra = 4;
        final InetSocketAddress coordinator = Ucx.freeLoopbackAddress();
        final List<Socket> held = new ArrayList<>();
        try (LogLines log = new LogLines())
        {
            final CompletableFuture<ControlPlane> zero = open(config(0, coordinator).maxPendingHandshakes(cap)
                .handshakeTimeout(SAFETY_NET.multipliedBy(10)).build());
            int greeted = 0;
            for (int i = 0; i < cap + extra; i++)
            {
                final Socket socket = connect(coordinator);
                held.add(socket);
                greeted += greeted(socket) ? 1 : 0;
            }
            assertEquals(cap, greeted, "connections greeted while " + cap + " handshakes are pending");
            final CompletableFuture<ControlPlane> one = open(config(1, coordinator).build());
            log.await("over the cap", l -> l.contains("already in their handshake; closed at once"), extra + 1,
                SAFETY_NET);
            assertTrue(!one.isDone(), "rank 1 joined while the cap was reached: " + one);
            closeAll(held);
            try (ControlPlane rank0 = join(zero, "rank 0"); ControlPlane rank1 = join(one, "rank 1"))
            {
                assertArrayEquals(blob(1), rank0.roster().blob(1));
                assertArrayEquals(blob(0), rank1.roster().blob(0));
            }
        }
        finally
        {
            closeAll(held);
        }
    }

    @Test
    void aConnectionSilentPastItsDeadlineIsClosedAndLoggedAsTimedOut() throws Exception
    {
        final InetSocketAddress coordinator = Ucx.freeLoopbackAddress();
        try (LogLines log = new LogLines())
        {
            // The deadline also bounds rank 1's own handshake: 1 s is ample for a loopback round trip.
            final CompletableFuture<ControlPlane> zero = open(config(0, coordinator)
                .handshakeTimeout(Duration.ofSeconds(1)).build());
            try (Socket silent = connect(coordinator))
            {
                assertTrue(greeted(silent), "the silent connection was closed before its greeting");
                assertEquals(-1, silent.getInputStream().read(), "the coordinator sent more than its greeting");
            }
            log.await("the timed-out handshake", l -> l.endsWith("no handshake and address within 1000 ms"), 1,
                SAFETY_NET);
            final CompletableFuture<ControlPlane> one = open(config(1, coordinator).build());
            try (ControlPlane rank0 = join(zero, "rank 0"); ControlPlane rank1 = join(one, "rank 1"))
            {
                assertArrayEquals(blob(1), rank0.roster().blob(1));
                assertArrayEquals(blob(0), rank1.roster().blob(0));
            }
        }
    }

    /** The control planes here are not started: they tell nothing. */
    private static final ControlPlane.Listener IGNORED = new ControlPlane.Listener()
    {
        @Override
        public void lost(final int rank, final int incarnation, final String reason)
        {
        }

        @Override
        public void rejoined(final int rank, final int incarnation, final byte[] blob)
        {
        }
    };

    static TransportConfig.Builder config(final int rank, final InetSocketAddress coordinator)
    {
        return TransportConfig.builder().rank(rank).size(2).coordinator(coordinator)
            .secret(Ucx.SECRET.getBytes(StandardCharsets.UTF_8)).connectTimeout(SAFETY_NET);
    }

    static byte[] blob(final int rank)
    {
        return ("address of rank " + rank).getBytes(StandardCharsets.UTF_8);
    }

    /** Opens the rank's control plane on a thread of its own (the common pool may have a single thread). */
    static CompletableFuture<ControlPlane> open(final TransportConfig config)
    {
        final CompletableFuture<ControlPlane> opened = new CompletableFuture<>();
        final Thread opener = new Thread(() ->
        {
            try
            {
                opened.complete(ControlPlane.open(config, blob(config.rank()), IGNORED));
            }
            catch (final Throwable t)
            {
                opened.completeExceptionally(t);
            }
        }, "open-rank-" + config.rank());
        opener.setDaemon(true);
        opener.start();
        return opened;
    }

    static ControlPlane join(final CompletableFuture<ControlPlane> opening, final String what) throws Exception
    {
        try
        {
            return opening.get(SAFETY_NET.toSeconds() * 2, TimeUnit.SECONDS);
        }
        catch (final TimeoutException ex)
        {
            throw new AssertionError(what + " did not finish the rendezvous within " + SAFETY_NET.multipliedBy(2), ex);
        }
        catch (final ExecutionException ex)
        {
            throw new AssertionError(what + " failed the rendezvous: " + ex.getCause(), ex.getCause());
        }
    }

    /** @return a connection to the coordinator, once it listens. */
    static Socket connect(final InetSocketAddress coordinator) throws IOException, InterruptedException
    {
        final long deadline = System.nanoTime() + SAFETY_NET.toNanos();
        while (true)
        {
            final Socket socket = new Socket();
            try
            {
                socket.connect(coordinator, (int)SAFETY_NET.toMillis());
                return socket;
            }
            catch (final ConnectException ex)
            {
                socket.close();
                if (System.nanoTime() > deadline)
                {
                    fail("the coordinator did not listen on " + coordinator + " within " + SAFETY_NET, ex);
                }
                TimeUnit.MILLISECONDS.sleep(10);
            }
        }
    }

    /** @return true when the coordinator greeted the connection, false when it closed it first. */
    static boolean greeted(final Socket socket) throws IOException
    {
        socket.setSoTimeout((int)SAFETY_NET.toMillis());
        try
        {
            new DataInputStream(socket.getInputStream()).readFully(new byte[GREETING_BYTES]);
            return true;
        }
        catch (final EOFException | SocketException ex)
        {
            return false; // closed (or reset) without a greeting
        }
        catch (final SocketTimeoutException ex)
        {
            throw new AssertionError("waited " + SAFETY_NET + " for the coordinator to greet or close " + socket, ex);
        }
    }

    static void closeAll(final List<Socket> sockets) throws IOException
    {
        for (final Socket socket : sockets)
        {
            socket.close();
        }
    }
}
