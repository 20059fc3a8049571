package dev.spillway.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.spillway.Acquired;
import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.SpillwayConfig;
import dev.spillway.io.StoreKind;
import dev.spillway.memory.ByteUnits;
import dev.spillway.ranks.DistributedSpillway;
import dev.spillway.ranks.GlobalCheckpoints;
import dev.spillway.ranks.RankProtocol;
import dev.spillway.rdma.CoordinatorPorts;
import dev.spillway.rdma.Transport;
import dev.spillway.rdma.TransportConfig;
import dev.spillway.rdma.UcxTransport;
import dev.spillway.resilience.Checkpoints;
import dev.spillway.resilience.p2f.EpochPlan;
import dev.spillway.resilience.p2f.P2fOptions;
import dev.spillway.resilience.p2f.P2fProtocol;
import dev.spillway.resilience.p2f.ReplayCopies;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code spillway bench p2f-transfer}: what past-to-future logging adds to one transfer between two ranks. Two ranks
 * in this JVM, over UCX with peer error handling (TCP over loopback, as launched ranks), pass two objects back and
 * forth through the engine: rank 1 reads {@code ping} and writes {@code pong}, rank 0 reads {@code pong} and writes
 * {@code ping}, so each round moves each object once. Without the protocol, with it and nothing logged, and with
 * every transfer logged; fresh ranks for every size and configuration, the configurations interleaved, medians.
 */
@Command(name = "p2f-transfer", mixinStandardHelpOptions = true,
    footer = {"", "Examples:",
        "  spillway bench p2f-transfer --json p2f-transfer.json",
        "  spillway bench p2f-transfer --max 1m --repeat 1"},
    sortOptions = false,
    description = {"Per-transfer time of the engine between two ranks, 8 B to --max, without past-to-future " +
        "logging, with it and nothing logged, and with every transfer logged (--p2f-log-all): a transfer is a " +
        "notice and the data, plus an ack with the protocol; a logged one is also copied (heap copy for replays, " +
        "and a log object that spills like any data). Both ranks run in this JVM over UCX (TCP over loopback, " +
        "peer error handling on, as launched ranks). Every run verifies the value the objects carried."})
final class P2fTransferBench implements Callable<Integer>
{
    /** No cut falls inside a measurement: checkpoints are configured, as with --p2f, but never taken. */
    private static final long NO_CUT = 1L << 40;
    private static final int WARM_UP_ROUNDS = 2;
    private static final int MIN_ROUNDS = 8;
    private static final int MAX_ROUNDS = 500;
    private static final Duration OPERATION_TIMEOUT = Duration.ofMinutes(10);

    /** The configurations compared. */
    enum Mode
    {
        OFF("protocol-off"),
        NOTHING_LOGGED("p2f-nothing-logged"),
        ALL_LOGGED("p2f-all-logged");

        final String label;

        Mode(final String label)
        {
            this.label = label;
        }
    }

    @Spec
    private CommandSpec spec;

    @Option(names = "--min", paramLabel = "BYTES", converter = ByteSize.class, defaultValue = "8",
        description = "Smallest object (default: ${DEFAULT-VALUE} B; at least 8).")
    private long min;

    @Option(names = "--max", paramLabel = "BYTES", converter = ByteSize.class, defaultValue = "64m",
        description = "Largest object (default: ${DEFAULT-VALUE}; at most 1g).")
    private long max;

    @Option(names = "--factor", defaultValue = "8", description = "Ratio between successive sizes (default: " +
        "${DEFAULT-VALUE}).")
    private int factor;

    @Option(names = "--volume", paramLabel = "BYTES", converter = ByteSize.class, defaultValue = "64m",
        description = "Bytes each object moves per run: rounds = volume / size, between " + MIN_ROUNDS + " and " +
            MAX_ROUNDS + " (default: ${DEFAULT-VALUE}).")
    private long volume;

    @Option(names = "--repeat", paramLabel = "K", defaultValue = "5", description = "Runs of each size and " +
        "configuration, interleaved; medians are reported (default: ${DEFAULT-VALUE}).")
    private int repeat;

    @Option(names = "--dir", defaultValue = "spillway-data", description = "Spill and checkpoint directory " +
        "(default: ${DEFAULT-VALUE}).")
    private Path dir;

    @Option(names = "--json", paramLabel = "FILE", description = "Write the figures to FILE as JSON.")
    private Path json;

    @Override
    public Integer call() throws Exception
    {
        final String problem = problem();
        if (problem != null)
        {
            throw new ParameterException(spec.commandLine(), problem);
        }
        final String noUcx = UcxTransport.unavailableReason();
        if (noUcx != null)
        {
            throw new IllegalStateException("bench p2f-transfer runs two UCX ranks: " + noUcx);
        }
        final Path base = Files.createDirectories(dir.toAbsolutePath().normalize().resolve("bench-p2f-transfer"));
        final List<Integer> sizes = new ArrayList<>();
        for (long s = min; s <= max; s *= factor)
        {
            sizes.add((int)s);
        }
        if (sizes.get(sizes.size() - 1) != max)
        {
            sizes.add((int)max);
        }
        System.err.printf(Locale.ROOT, "spillway bench p2f-transfer: 2 ranks in this JVM over UCX (TCP, peer error " +
            "handling), %d sizes from %s to %s, %d repeat(s)%n", sizes.size(), ByteUnits.format(min),
            ByteUnits.format(max), repeat);
        final Map<Integer, Map<Mode, List<Double>>> micros = new LinkedHashMap<>();
        try (Progress progress = Progress.start("p2f-transfer", (long)sizes.size() * repeat * Mode.values().length))
        {
            for (final int bytes : sizes)
            {
                final Map<Mode, List<Double>> row = micros.computeIfAbsent(bytes, b -> new EnumMap<>(Mode.class));
                for (int i = 0; i < repeat; i++)
                {
                    for (final Mode mode : Mode.values())
                    {
                        final double us = perTransferMicros(mode, bytes, rounds(bytes), base.resolve(mode.label));
                        row.computeIfAbsent(mode, m -> new ArrayList<>()).add(us);
                        progress.step(String.format(Locale.ROOT, "%s %s: %.1f us", ByteUnits.format(bytes),
                            mode.label, us));
                    }
                }
            }
        }
        report(micros);
        Dirs.deleteTree(base);
        return 0;
    }

    private String problem()
    {
        if (min < 8 || max > 1L << 30 || min > max)
        {
            return "need 8 B <= --min <= --max <= 1 GiB, got --min " + min + " --max " + max;
        }
        if (factor < 2)
        {
            return "--factor must be at least 2, got " + factor;
        }
        if (repeat < 1)
        {
            return "need --repeat of at least 1, got " + repeat;
        }
        return volume < 1 ? "--volume must be positive" : null;
    }

    /** @return the measured rounds for objects of {@code bytes}. */
    int rounds(final int bytes)
    {
        return (int)Math.max(MIN_ROUNDS, Math.min(MAX_ROUNDS, volume / bytes));
    }

    private void report(final Map<Integer, Map<Mode, List<Double>>> micros) throws IOException
    {
        final PrintWriter out = spec.commandLine().getOut();
        out.printf("%10s %7s %12s %12s %8s %12s %8s %10s%n", "bytes", "rounds", "off us", "nothing us", "ratio",
            "all us", "ratio", "off MiB/s");
        final List<Map<String, Object>> rows = new ArrayList<>();
        micros.forEach((bytes, byMode) ->
        {
            final double off = Samples.median(toArray(byMode.get(Mode.OFF)));
            final double nothing = Samples.median(toArray(byMode.get(Mode.NOTHING_LOGGED)));
            final double all = Samples.median(toArray(byMode.get(Mode.ALL_LOGGED)));
            out.printf(Locale.ROOT, "%10d %7d %12.1f %12.1f %8.3f %12.1f %8.3f %10.1f%n", bytes, rounds(bytes), off,
                nothing, nothing / off, all, all / off, bytes / off * 1e6 / (1 << 20));
            final Map<String, Object> row = new LinkedHashMap<>();
            row.put("bytes", bytes);
            row.put("rounds", rounds(bytes));
            for (final Mode m : Mode.values())
            {
                row.put(m.label.replace('-', '_') + "_us", Samples.median(toArray(byMode.get(m))));
                row.put(m.label.replace('-', '_') + "_samples_us", toArray(byMode.get(m)));
            }
            row.put("nothing_logged_ratio", nothing / off);
            row.put("all_logged_ratio", all / off);
            rows.add(row);
        });
        out.println("every run verified the values the objects carried");
        out.flush();
        if (json != null)
        {
            final Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("ranks", 2);
            doc.put("transport", "ucx tcp, peer error handling, one JVM");
            doc.put("repeat", repeat);
            doc.put("warm_up_rounds", WARM_UP_ROUNDS);
            doc.put("sizes", rows);
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), doc);
        }
    }

    private static double[] toArray(final List<Double> values)
    {
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /** @return the mean time of one transfer, over {@code rounds} rounds of two, on fresh ranks. */
    private static double perTransferMicros(final Mode mode, final int bytes, final int rounds, final Path root)
        throws IOException, InterruptedException
    {
        Dirs.deleteTree(root);
        Files.createDirectories(root);
        final InetSocketAddress coordinator = CoordinatorPorts.freeLoopback();
        final byte[] secret = new byte[24];
        new SecureRandom().nextBytes(secret);
        final ExecutorService ranks = Executors.newFixedThreadPool(2);
        try
        {
            final Future<Long> rank0 = ranks.submit(() -> rank(0, mode, bytes, rounds, root, coordinator, secret));
            final Future<Long> rank1 = ranks.submit(() -> rank(1, mode, bytes, rounds, root, coordinator, secret));
            final long nanos = rank0.get();
            rank1.get();
            return nanos / 1e3 / (2.0 * rounds);
        }
        catch (final ExecutionException e)
        {
            throw new IllegalStateException(mode.label + " with objects of " + bytes + " B failed: " + e.getCause(),
                e.getCause());
        }
        finally
        {
            ranks.shutdownNow();
        }
    }

    /** One rank's side: the same program on both; returns the measured rounds' wall time. */
    private static long rank(final int rank, final Mode mode, final int bytes, final int rounds, final Path root,
        final InetSocketAddress coordinator, final byte[] secret) throws IOException
    {
        try (Transport transport = UcxTransport.open(TransportConfig.builder().rank(rank).size(2)
            .coordinator(coordinator).secret(secret).peerErrorHandling(true).operationTimeout(OPERATION_TIMEOUT)
            .build()))
        {
            final long restored = GlobalCheckpoints.agreeOnRestore(transport, root);
            final GlobalCheckpoints policy = GlobalCheckpoints.everyTasks(NO_CUT, root, restored, 0);
            final int logs = mode == Mode.ALL_LOGGED ? 2 * (rounds + WARM_UP_ROUNDS) : 0;
            final SpillwayConfig config = Spillway.builder().storeDir(root.resolve("spill-" + rank))
                .store(StoreKind.DIRECT).dramBudget(8L * Math.max(bytes, 1 << 20)).workers(1)
                .storeSizing(64 + logs, bytes)
                .checkpoints(Checkpoints.store(root.resolve("rank-" + rank)).globalCut(restored).open(), policy);
            final RankProtocol protocol = mode == Mode.OFF ? RankProtocol.NONE : new P2fProtocol(rank, 2,
                EpochPlan.aligned(2, 1, NO_CUT), new P2fOptions(true, mode == Mode.ALL_LOGGED),
                ReplayCopies.in(root.resolve("replays-" + rank)));
            try (DistributedSpillway ds = new DistributedSpillway(transport, config, protocol))
            {
                final Data ping = ds.data("ping", bytes, 0);
                final Data pong = ds.data("pong", bytes, 1);
                ds.task("start ping").write(ping).submit(ctx -> ctx.buffer(ping).putLong(0, 0));
                ds.task("start pong").write(pong).submit(ctx -> ctx.buffer(pong).putLong(0, 0));
                submitRounds(ds, ping, pong, 0, WARM_UP_ROUNDS);
                ds.awaitAll();
                final long start = System.nanoTime();
                submitRounds(ds, ping, pong, WARM_UP_ROUNDS, rounds);
                ds.awaitAll();
                final long nanos = System.nanoTime() - start;
                final long total = WARM_UP_ROUNDS + rounds;
                final Data mine = rank == 0 ? ping : pong;
                try (Acquired a = ds.local().acquire(mine))
                {
                    final long expected = rank == 0 ? 2 * total : 2 * total - 1;
                    if (a.buffer().getLong(0) != expected)
                    {
                        throw new IllegalStateException("rank " + rank + ": '" + mine.tag() + "' holds " +
                            a.buffer().getLong(0) + " after " + total + " rounds, expected " + expected);
                    }
                }
                return nanos;
            }
        }
    }

    /** Each round: rank 1 reads {@code ping} into {@code pong}, rank 0 reads {@code pong} into {@code ping}. */
    private static void submitRounds(final DistributedSpillway ds, final Data ping, final Data pong, final int first,
        final int count)
    {
        for (int i = first; i < first + count; i++)
        {
            ds.task("pong " + i).readWrite(pong).read(ping)
                .submit(ctx -> ctx.buffer(pong).putLong(0, ctx.buffer(ping).getLong(0) + 1));
            ds.task("ping " + i).readWrite(ping).read(pong)
                .submit(ctx -> ctx.buffer(ping).putLong(0, ctx.buffer(pong).getLong(0) + 1));
        }
    }
}
