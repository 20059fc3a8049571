package dev.spillway.rdma;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Put/get bandwidth and latency between two ranks in two processes (this one and a child JVM), next to
 * {@code ucx_perftest} run on loopback for the same sizes, with the ratio. Not a test: run it by hand.
 *
 * <pre>
 *   java -cp ... dev.spillway.rdma.RdmaBench [shm|tcp|both] [maxBytes]
 * </pre>
 *
 * shm: UCX without peer error handling (shared memory); tcp: with it (TCP over loopback); both: one after the other.
 * Bandwidth is in MiB/s (as ucx_perftest's "MB/s"); our latency is one put (or get) plus a flush, a full round
 * trip; ucx_perftest's put latency is half a ping-pong, its get latency one get.
 */
public final class RdmaBench
{
    private static final int WINDOW_TAG = 77;
    private static final int DONE_TAG = 99;
    private static final long BYTES_PER_POINT = 256L << 20;
    private static final String MODE_ENV = "SPILLWAY_UCX_ERROR_HANDLING";

    private RdmaBench()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length > 0 && args[0].equals("--peer"))
        {
            peer(Integer.parseInt(args[1]));
            return;
        }
        final String mode = args.length > 0 ? args[0] : "both";
        final int maxBytes = args.length > 1 ? Integer.parseInt(args[1]) : 64 << 20;
        final String missing = UcxTransport.unavailableReason();
        if (missing != null)
        {
            System.err.println("RdmaBench: " + missing);
            System.exit(2);
        }
        for (final boolean errorHandling : mode.equals("both") ? new boolean[] {false, true} :
            new boolean[] {mode.equals("tcp")})
        {
            run(errorHandling, maxBytes);
        }
    }

    static List<Integer> sizes(final int maxBytes)
    {
        final List<Integer> sizes = new ArrayList<>();
        for (long s = 8; s <= maxBytes; s *= 4)
        {
            sizes.add((int)s);
        }
        if (sizes.get(sizes.size() - 1) != maxBytes)
        {
            sizes.add(maxBytes);
        }
        return sizes;
    }

    private static void run(final boolean errorHandling, final int maxBytes) throws Exception
    {
        final int port = freePort();
        final byte[] secretBytes = new byte[24];
        new SecureRandom().nextBytes(secretBytes);
        final String secret = HexFormat.of().formatHex(secretBytes);
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
            RdmaBench.class.getName(), "--peer", Integer.toString(maxBytes)).inheritIO();
        final Map<String, String> env = pb.environment();
        env.put(TransportConfig.RANK_ENV, "1");
        env.put(TransportConfig.SIZE_ENV, "2");
        env.put(TransportConfig.COORDINATOR_ENV, "127.0.0.1:" + port);
        env.put(TransportConfig.SECRET_ENV, secret);
        env.put(MODE_ENV, Boolean.toString(errorHandling));
        env.putIfAbsent("UCX_NET_DEVICES", "lo");
        final Process peer = pb.start();
        final TransportConfig config = TransportConfig.builder().rank(0).size(2)
            .coordinator(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port))
            .secret(secret.getBytes(StandardCharsets.UTF_8)).peerErrorHandling(errorHandling)
            .operationTimeout(Duration.ofMinutes(2)).idleMaxPark(Duration.ofNanos(10_000)).build();
        final String label = errorHandling ? "tcp (UCX peer error handling, TCP over lo)" :
            "shm (no peer error handling, shared memory)";
        System.out.println();
        System.out.println("RdmaBench " + label + ": 2 processes, put/get into a " + maxBytes +
            "-byte window UCX allocated at the peer");
        System.out.printf("%10s | %10s %10s %6s | %9s %9s | %10s %10s %6s | %9s %9s%n", "bytes", "put MiB/s",
            "perftest", "ratio", "put us", "perftest", "get MiB/s", "perftest", "ratio", "get us", "perftest");
        try (UcxTransport t = UcxTransport.open(config);
            Window mine = t.createWindow("bench-0", 8))
        {
            final WindowHandle target = Collectives.exchange(t, WINDOW_TAG, mine)[1];
            final ByteBuffer local = ByteBuffer.allocateDirect(maxBytes);
            for (int warm = 0; warm < 3; warm++)
            {
                bandwidth(t, target, local.duplicate().limit(8).slice(), 5_000, true);
                bandwidth(t, target, local.duplicate().limit(8).slice(), 5_000, false);
                latency(t, target, local.duplicate().limit(8).slice(), 500, true);
                latency(t, target, local.duplicate().limit(8).slice(), 500, false);
            }
            for (final int size : sizes(maxBytes))
            {
                final ByteBuffer region = local.duplicate().limit(size).slice();
                final int bwIters = (int)Math.max(4, Math.min(20_000, BYTES_PER_POINT / size));
                final int latIters = Math.max(3, Math.min(1_000, bwIters / 4));
                final double putBw = bandwidth(t, target, region, bwIters, true);
                final double putLat = latency(t, target, region, latIters, true);
                final double getBw = bandwidth(t, target, region, bwIters, false);
                final double getLat = latency(t, target, region, latIters, false);
                final double[] pPut = perftest("ucp_put_bw", size, bwIters, errorHandling);
                final double[] pPutLat = perftest("ucp_put_lat", size, latIters, errorHandling);
                final double[] pGet = perftest("ucp_get", size, bwIters, errorHandling);
                System.out.printf("%10d | %10.1f %10.1f %6.2f | %9.1f %9.1f | %10.1f %10.1f %6.2f | %9.1f %9.1f%n",
                    size, putBw, pPut[1], putBw / pPut[1], putLat, pPutLat[0], getBw, pGet[1], getBw / pGet[1],
                    getLat, pGet[0]);
            }
            Collectives.await(t.send(1, Header.of(DONE_TAG), ByteBuffer.allocateDirect(8)));
        }
        finally
        {
            if (!peer.waitFor(30, TimeUnit.SECONDS))
            {
                peer.destroyForcibly();
            }
        }
    }

    private static double bandwidth(final Transport t, final WindowHandle target, final ByteBuffer region,
        final int iterations, final boolean put)
    {
        issue(t, target, region, put);
        Collectives.await(t.flush(1));
        final long start = System.nanoTime();
        for (int i = 0; i < iterations; i++)
        {
            issue(t, target, region, put);
        }
        Collectives.await(t.flush(1));
        final double seconds = (System.nanoTime() - start) / 1e9;
        return (double)region.remaining() * iterations / (1 << 20) / seconds;
    }

    private static double latency(final Transport t, final WindowHandle target, final ByteBuffer region,
        final int iterations, final boolean put)
    {
        final long start = System.nanoTime();
        for (int i = 0; i < iterations; i++)
        {
            issue(t, target, region, put);
            Collectives.await(t.flush(1));
        }
        return (System.nanoTime() - start) / 1e3 / iterations;
    }

    private static void issue(final Transport t, final WindowHandle target, final ByteBuffer region, final boolean put)
    {
        if (put)
        {
            t.put(target, 0, region);
        }
        else
        {
            t.get(target, 0, region);
        }
    }

    /** @return {latency or overhead in us (average), bandwidth in MiB/s (overall)}, NaN when perftest failed. */
    static double[] perftest(final String test, final int size, final int iterations, final boolean errorHandling)
        throws IOException, InterruptedException
    {
        final int port = freePort();
        final List<String> common = new ArrayList<>(List.of("-t", test, "-s", Integer.toString(size), "-n",
            Integer.toString(iterations), "-w", Integer.toString(Math.max(1, iterations / 10)), "-f", "-p",
            Integer.toString(port)));
        if (errorHandling)
        {
            common.add("-e");
        }
        final List<String> serverCmd = new ArrayList<>(List.of("ucx_perftest"));
        serverCmd.addAll(common);
        final ProcessBuilder server = new ProcessBuilder(serverCmd).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        server.environment().putIfAbsent("UCX_NET_DEVICES", "lo");
        final Process s = server.start();
        try
        {
            for (int attempt = 0; attempt < 20; attempt++)
            {
                TimeUnit.MILLISECONDS.sleep(100);
                final List<String> clientCmd = new ArrayList<>(List.of("ucx_perftest", "127.0.0.1"));
                clientCmd.addAll(common);
                final ProcessBuilder client = new ProcessBuilder(clientCmd).redirectErrorStream(true);
                client.environment().putIfAbsent("UCX_NET_DEVICES", "lo");
                final Process c = client.start();
                String last = null;
                try (BufferedReader r = new BufferedReader(new InputStreamReader(c.getInputStream(),
                    StandardCharsets.UTF_8)))
                {
                    for (String line; (line = r.readLine()) != null; )
                    {
                        if (line.trim().matches("\\d+\\s+[-\\d.].*"))
                        {
                            last = line.trim();
                        }
                    }
                }
                if (!c.waitFor(120, TimeUnit.SECONDS))
                {
                    c.destroyForcibly();
                }
                if (last != null)
                {
                    final String[] f = last.split("\\s+");
                    return new double[] {Double.parseDouble(f[2]), Double.parseDouble(f[5])};
                }
                if (!s.isAlive())
                {
                    break;
                }
            }
            return new double[] {Double.NaN, Double.NaN};
        }
        finally
        {
            s.destroy();
            s.waitFor(5, TimeUnit.SECONDS);
        }
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return s.getLocalPort();
        }
    }

    private static void peer(final int windowBytes)
    {
        final TransportConfig config = TransportConfig.fromEnvironment(System.getenv())
            .peerErrorHandling(!"false".equals(System.getenv(MODE_ENV)))
            .operationTimeout(Duration.ofMinutes(10)).idleMaxPark(Duration.ofNanos(10_000)).build();
        try (UcxTransport transport = UcxTransport.open(config);
            Window window = transport.createWindow("bench-peer", windowBytes))
        {
            Collectives.exchange(transport, WINDOW_TAG, window);
            Collectives.await(transport.receive(0, DONE_TAG, ByteBuffer.allocateDirect(8)));
        }
    }
}
