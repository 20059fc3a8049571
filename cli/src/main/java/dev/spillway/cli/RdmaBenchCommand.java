package dev.spillway.cli;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.spillway.memory.ByteUnits;
import dev.spillway.rdma.CoordinatorPorts;
import dev.spillway.rdma.TransportConfig;
import dev.spillway.rdma.UcxTransport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code spillway bench rdma}: put/get bandwidth and put latency between this JVM (rank 0) and a child JVM (rank 1)
 * over the UCX transport, for sizes from 8 B to {@code --max-bytes}, each next to {@code ucx_perftest} run on the same
 * transport, size and iteration count.
 */
@Command(name = "rdma", mixinStandardHelpOptions = true,
    footer = {"", "Examples:",
        "  spillway bench rdma --transport shm --json rdma-shm.json"},
    sortOptions = false,
    description = {"Put/get bandwidth and put latency of the UCX transport between two processes, next to " +
        "ucx_perftest (package ucx-utils) on the same transport, sizes and iteration counts.",
        "shm: UCX without peer error handling, one-sided shared memory (sysv/posix); tcp: with peer error " +
            "handling, TCP over loopback. Bandwidth is in MiB/s (ucx_perftest's \"MB/s\" is also 2^20 B/s): n " +
            "operations back to back on one offset, then one flush, after n/10 to warm up. Put latency is one put " +
            "plus its flush (a round trip). The RMA lanes UCX chose for us and for ucx_perftest are printed and " +
            "must match. Target: put bandwidth for 1 MiB or more >= 0.9x ucx_perftest."})
final class RdmaBenchCommand implements Callable<Integer>
{
    /** The size from which the put bandwidth target applies. */
    static final int TARGET_FROM_BYTES = 1 << 20;
    /** Put bandwidth over {@code ucx_perftest}'s the target asks for. */
    static final double TARGET_RATIO = 0.9;

    private static final int MAX_BYTES = 1 << 30;
    private static final Duration OPERATION_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration IDLE_MAX_PARK = Duration.ofNanos(10_000);
    private static final long PEER_EXIT_SECONDS = 30;

    /** How the two ranks reach each other. */
    enum Fabric
    {
        /** No peer error handling: UCX's shared-memory transports, one-sided. */
        SHM,
        /** Peer error handling: TCP over loopback (shared memory cannot report a dead peer). */
        TCP;

        String label()
        {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    @Spec
    private CommandSpec spec;

    @Option(names = "--transport", defaultValue = "shm", description = "shm or tcp (default: ${DEFAULT-VALUE}).")
    private Fabric fabric;

    @Option(names = "--max-bytes", converter = ByteSize.class, defaultValue = "64m",
        description = "Largest size; sizes are the powers of two from 8 B (default: ${DEFAULT-VALUE}).")
    private long maxBytes;

    @Option(names = "--seconds", defaultValue = "0.25",
        description = "About how long each bandwidth figure runs; sets the iteration count (default: " +
            "${DEFAULT-VALUE}).")
    private double seconds;

    @Option(names = "--peer", hidden = true, description = "Run as rank 1 (the bench starts it).")
    private boolean peer;

    @Mixin
    private JsonOutput json;

    /**
     * One size in {@code --json}: bandwidths in MiB/s, latency in microseconds, ratio = ours / ucx_perftest's.
     *
     * @param perftestGetMbS ucx_perftest's get bandwidth, for the table only (the issue fixes the JSON keys).
     */
    record Row(long bytes, double putMbS, double getMbS, double putLatencyUs, double perftestPutMbS, double putRatio,
        @JsonIgnore double perftestGetMbS)
    {
        static Row of(final RdmaBench.Point point, final UcxPerftest.Result put, final UcxPerftest.Result get)
        {
            return new Row(point.bytes(), point.putMiBs(), point.getMiBs(), point.putLatencyUs(), put.mibPerSecond(),
                point.putMiBs() / put.mibPerSecond(), get.mibPerSecond());
        }

        String format()
        {
            return String.format(Locale.ROOT, "%10s %11.1f %11.1f %6.2f %11.1f %11.1f %6.2f %10.2f",
                ByteUnits.format(bytes), putMbS, perftestPutMbS, putRatio, getMbS, perftestGetMbS,
                getMbS / perftestGetMbS, putLatencyUs);
        }
    }

    /** What {@code --json} writes. */
    record Result(String transport, String ucxVersion, String rmaLanes, String perftestRmaLanes,
        double idleMaxParkUs, double secondsPerFigure, List<Row> sizes)
    {
        /** @return the smallest put ratio from {@link #TARGET_FROM_BYTES} on, or NaN when no size is that large. */
        double minLargePutRatio()
        {
            return sizes.stream().filter(r -> r.bytes() >= TARGET_FROM_BYTES).mapToDouble(Row::putRatio).min()
                .orElse(Double.NaN);
        }
    }

    @Override
    public Integer call() throws IOException, InterruptedException
    {
        if (maxBytes < RdmaBench.MIN_BYTES || maxBytes > MAX_BYTES)
        {
            throw new ParameterException(spec.commandLine(), "--max-bytes must be between " + RdmaBench.MIN_BYTES +
                " B and " + ByteUnits.format(MAX_BYTES) + ", not " + maxBytes);
        }
        if (!(seconds > 0))
        {
            throw new ParameterException(spec.commandLine(), "--seconds must be positive");
        }
        if (peer)
        {
            try (UcxTransport transport = UcxTransport.open(config(TransportConfig.fromEnvironment(System.getenv()))))
            {
                RdmaBench.serve(transport, (int)maxBytes);
            }
            return 0;
        }
        require(UcxTransport.unavailableReason());
        require(UcxPerftest.unavailableReason());
        report(measure());
        return 0;
    }

    /** Prints {@code r} as a table with the verdict, and writes it to the {@code --json} file if one was given. */
    void report(final Result r) throws IOException
    {
        print(r);
        json.write(r);
    }

    /**
     * Measures every size with our transport, lets rank 1 end, then runs ucx_perftest for every size: the two never
     * share the two cores (our idle progress threads would slow ucx_perftest down).
     */
    private Result measure() throws IOException, InterruptedException
    {
        final List<Integer> sizes = RdmaBench.sizes((int)maxBytes);
        try (Progress progress = Progress.start("bench rdma " + fabric.label(), 2L * sizes.size()))
        {
            final Path peerLog = Files.createTempFile("spillway-rdma-peer-", ".log");
            final List<RdmaBench.Point> points = ours(sizes, peerLog, progress);
            final String log = Files.readString(peerLog);
            Files.delete(peerLog);
            final List<Row> rows = new ArrayList<>();
            String perftestLanes = null;
            for (final RdmaBench.Point point : points)
            {
                final boolean errorHandling = fabric == Fabric.TCP;
                final UcxPerftest.Result put = UcxPerftest.run("ucp_put_bw", point.bytes(), point.iterations(),
                    errorHandling);
                final UcxPerftest.Result get = UcxPerftest.run("ucp_get", point.bytes(), point.iterations(),
                    errorHandling);
                perftestLanes = perftestLanes == null ? put.rmaLanes() : perftestLanes;
                rows.add(Row.of(point, put, get));
                progress.step(String.format(Locale.ROOT, "ucx_perftest %s x %d: put %.1f MiB/s, get %.1f MiB/s",
                    ByteUnits.format(point.bytes()), point.iterations(), put.mibPerSecond(), get.mibPerSecond()));
            }
            return new Result(fabric.label(), UcxPerftest.version(log), UcxPerftest.rmaLanes(log), perftestLanes,
                IDLE_MAX_PARK.toNanos() / 1e3, seconds, rows);
        }
    }

    /** @return our figures per size, measured against rank 1, a child JVM that logs to {@code peerLog}. */
    private List<RdmaBench.Point> ours(final List<Integer> sizes, final Path peerLog, final Progress progress)
        throws IOException, InterruptedException
    {
        final int port = CoordinatorPorts.freeLoopback().getPort();
        final byte[] random = new byte[24];
        new SecureRandom().nextBytes(random);
        final String secret = HexFormat.of().formatHex(random);
        final ProcessBuilder pb = new ProcessBuilder(ChildJvm.command("256m", List.of("bench", "rdma", "--peer",
            "--transport", fabric.label(), "--max-bytes", Long.toString(maxBytes))))
            .redirectErrorStream(true).redirectOutput(peerLog.toFile());
        final Map<String, String> env = pb.environment();
        env.put(TransportConfig.RANK_ENV, "1");
        env.put(TransportConfig.SIZE_ENV, "2");
        env.put(TransportConfig.COORDINATOR_ENV, "127.0.0.1:" + port);
        env.put(TransportConfig.SECRET_ENV, secret);
        env.put("UCX_LOG_LEVEL", "info"); // the peer's log names the lanes UCX chose and its version
        final Process child = pb.start();
        final Thread reaper = new Thread(child::destroyForcibly, "spillway-rdma-peer-reaper"); // on Ctrl-C
        Runtime.getRuntime().addShutdownHook(reaper);
        try
        {
            final List<RdmaBench.Point> points = new ArrayList<>();
            final TransportConfig.Builder config = TransportConfig.builder().rank(0).size(2)
                .coordinator(new InetSocketAddress(InetAddress.getLoopbackAddress(), port))
                .secret(secret.getBytes(StandardCharsets.UTF_8));
            try (UcxTransport transport = UcxTransport.open(config(config));
                RdmaBench bench = RdmaBench.connect(transport, (int)maxBytes))
            {
                for (final int size : sizes)
                {
                    final RdmaBench.Point p = bench.measure(size, seconds);
                    points.add(p);
                    progress.step(String.format(Locale.ROOT, "spillway %s x %d: put %.1f MiB/s, get %.1f MiB/s, " +
                        "put+flush %.2f us", ByteUnits.format(size), p.iterations(), p.putMiBs(), p.getMiBs(),
                        p.putLatencyUs()));
                }
            }
            if (!child.waitFor(PEER_EXIT_SECONDS, TimeUnit.SECONDS) || child.exitValue() != 0)
            {
                throw new IllegalStateException("rank 1 (pid " + child.pid() + ") did not end cleanly");
            }
            return points;
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalStateException("bench rdma (" + fabric.label() + ") failed: " + ex.getMessage() +
                "; rank 1's log: " + peerLog, ex);
        }
        finally
        {
            if (child.isAlive())
            {
                child.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
            Runtime.getRuntime().removeShutdownHook(reaper);
        }
    }

    private TransportConfig config(final TransportConfig.Builder builder)
    {
        return builder.peerErrorHandling(fabric == Fabric.TCP).operationTimeout(OPERATION_TIMEOUT)
            .idleMaxPark(IDLE_MAX_PARK).build();
    }

    private void print(final Result r)
    {
        final PrintWriter out = spec.commandLine().getOut();
        out.printf(Locale.ROOT, "spillway bench rdma --transport %s: 2 processes, UCX %s, our RMA lanes %s, " +
            "ucx_perftest's %s%n", r.transport(), r.ucxVersion(), r.rmaLanes(), r.perftestRmaLanes());
        if (!Objects.equals(r.rmaLanes(), r.perftestRmaLanes()))
        {
            out.println("WARNING: the RMA lanes differ; the ratios compare different transports");
        }
        out.printf("%10s %11s %11s %6s %11s %11s %6s %10s%n", "bytes", "put MiB/s", "perftest", "ratio", "get MiB/s",
            "perftest", "ratio", "put+flush us");
        r.sizes().forEach(row -> out.println(row.format()));
        final double worst = r.minLargePutRatio();
        if (!Double.isNaN(worst))
        {
            out.printf(Locale.ROOT, "verdict: put bandwidth from %s, lowest ratio to ucx_perftest %.2f (target >= " +
                "%.1f): %s%n", ByteUnits.format(TARGET_FROM_BYTES), worst, TARGET_RATIO, worst >= TARGET_RATIO ?
                "PASS" : "FAIL");
        }
        out.flush();
    }

    private static void require(final String unavailableReason)
    {
        if (unavailableReason != null)
        {
            throw new IllegalStateException(unavailableReason);
        }
    }
}
