package dev.spillway.cli;

import dev.spillway.rdma.CoordinatorPorts;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs UCX's own {@code ucx_perftest} (Debian package {@code ucx-utils}) as a server and a client on loopback, to put
 * {@link RdmaBench}'s figures beside what UCX reaches without us. Both processes get {@code UCX_NET_DEVICES=lo} and,
 * for the TCP transport, endpoints with peer error handling ({@code -e}), as {@link UcxTransport} does; the client runs
 * with {@code UCX_LOG_LEVEL=info} so that the RMA lanes UCX chose can be read from its output ({@link #rmaLanes}).
 *
 * <p>Method, as {@link RdmaBench}: {@code -n} operations back to back after {@code n / 10} to warm up, all of them
 * allowed outstanding ({@code -O n}; by default {@code ucp_get} waits for each get, one round trip per get over TCP).
 * A JVM that exits (even on Ctrl-C) destroys the processes it started here first.
 */
public final class UcxPerftest
{
    /** The executable, looked up on the PATH. */
    public static final String EXECUTABLE = "ucx_perftest";

    private static final Pattern NUMBERS = Pattern.compile("\\s*(\\d+)\\s+([-\\d.]+)\\s+([-\\d.]+)\\s+([-\\d.]+)" +
        "\\s+([-\\d.]+)\\s+([-\\d.]+).*");
    private static final Pattern LANES = Pattern.compile("ep_cfg\\[\\d+]:.*?\\b(rma(?:_am)?\\([^)]*\\))");
    private static final Pattern VERSION = Pattern.compile("UCX\\s+INFO\\s+Version (\\S+)");
    private static final int CONNECT_ATTEMPTS = 50;
    private static final long RUN_TIMEOUT_SECONDS = 300;

    /** Processes started and not yet ended; guarded by itself, as {@link #exiting}. */
    private static final Set<Process> LIVE = new HashSet<>();
    private static boolean exiting;

    static
    {
        Runtime.getRuntime().addShutdownHook(new Thread(UcxPerftest::destroyAll, "spillway-perftest-reaper"));
    }

    private UcxPerftest()
    {
    }

    /**
     * One run's figures.
     *
     * @param overheadUs average time per operation (microseconds).
     * @param mibPerSecond overall bandwidth in MiB/s (what {@code ucx_perftest} prints as "MB/s").
     * @param rmaLanes the RMA lanes of the client's endpoint, e.g. {@code rma(sysv/memory posix/memory)}.
     */
    public record Result(double overheadUs, double mibPerSecond, String rmaLanes)
    {
    }

    /** @return null when {@value #EXECUTABLE} is on the PATH, otherwise what to install. */
    public static String unavailableReason()
    {
        final String path = System.getenv("PATH");
        if (path != null)
        {
            for (final String dir : path.split(File.pathSeparator))
            {
                if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, EXECUTABLE)))
                {
                    return null;
                }
            }
        }
        return EXECUTABLE + " is not on the PATH: install the package ucx-utils (apt-get install ucx-utils)";
    }

    /**
     * Runs one test.
     *
     * @param test {@code ucp_put_bw} or {@code ucp_get}.
     * @param bytes message size.
     * @param iterations measured iterations ({@code -n}), all allowed outstanding ({@code -O}); {@code iterations /
     *     10} more warm up ({@code -w}).
     * @param errorHandling endpoints with peer error handling ({@code -e}): TCP; without, shared memory.
     * @return the client's final figures.
     * @throws IOException when the processes cannot start, or the client printed no figures (its output is quoted).
     */
    public static Result run(final String test, final int bytes, final int iterations, final boolean errorHandling)
        throws IOException, InterruptedException
    {
        final String what = EXECUTABLE + " -t " + test + " -s " + bytes;
        final int port = CoordinatorPorts.freeLoopback().getPort();
        final List<String> options = new ArrayList<>(List.of("-t", test, "-s", Integer.toString(bytes), "-n",
            Integer.toString(iterations), "-w", Integer.toString(Math.max(1, iterations / 10)), "-O",
            Integer.toString(iterations), "-f", "-p", Integer.toString(port)));
        if (errorHandling)
        {
            options.add("-e");
        }
        final Path serverLog = Files.createTempFile("spillway-perftest-server-", ".log");
        final Path clientLog = Files.createTempFile("spillway-perftest-client-", ".log");
        final Process server = start(command(null, options), serverLog, false);
        try
        {
            String output = "";
            for (int attempt = 0; attempt < CONNECT_ATTEMPTS && server.isAlive(); attempt++)
            {
                TimeUnit.MILLISECONDS.sleep(100);
                final Process client = start(command("127.0.0.1", options), clientLog, true);
                if (!client.waitFor(RUN_TIMEOUT_SECONDS, TimeUnit.SECONDS))
                {
                    end(client);
                    throw new IOException(what + " did not finish in " + RUN_TIMEOUT_SECONDS + " s");
                }
                end(client);
                output = Files.readString(clientLog, StandardCharsets.UTF_8);
                final Result result = parse(output);
                if (result != null)
                {
                    return result;
                }
            }
            throw new IOException(what + " printed no figures; its output:\n" + output.strip() +
                (server.isAlive() ? "" : "\nserver output:\n" + Files.readString(serverLog).strip()));
        }
        finally
        {
            end(server);
            Files.deleteIfExists(serverLog);
            Files.deleteIfExists(clientLog);
        }
    }

    /** @return the figures and lanes of a client's output ({@code -f}: one row of numbers), or null when absent. */
    static Result parse(final String output)
    {
        Result result = null;
        for (final String line : output.split("\n"))
        {
            final Matcher m = NUMBERS.matcher(line);
            if (m.matches())
            {
                result = new Result(Double.parseDouble(m.group(3)), Double.parseDouble(m.group(6)), rmaLanes(output));
            }
        }
        return result;
    }

    /**
     * @param ucxLog output of a UCX process run with {@code UCX_LOG_LEVEL=info}.
     * @return the RMA lanes of its first endpoint that does not loop back to itself, e.g.
     *     {@code rma(sysv/memory posix/memory)} or {@code rma_am(tcp/lo)}, or null when the log names none.
     */
    public static String rmaLanes(final String ucxLog)
    {
        for (final String line : ucxLog.split("\n"))
        {
            final Matcher m = LANES.matcher(line);
            if (m.find() && !line.contains("self/"))
            {
                return m.group(1);
            }
        }
        return null;
    }

    /** @return the UCX version a UCX process run with {@code UCX_LOG_LEVEL=info} loaded, or null. */
    public static String version(final String ucxLog)
    {
        final Matcher m = VERSION.matcher(ucxLog);
        return m.find() ? m.group(1) : null;
    }

    private static List<String> command(final String host, final List<String> options)
    {
        final List<String> cmd = new ArrayList<>();
        cmd.add(EXECUTABLE);
        if (host != null)
        {
            cmd.add(host);
        }
        cmd.addAll(options);
        return cmd;
    }

    private static Process start(final List<String> cmd, final Path log, final boolean info) throws IOException
    {
        final ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("UCX_NET_DEVICES", "lo");
        if (info)
        {
            pb.environment().put("UCX_LOG_LEVEL", "info");
        }
        synchronized (LIVE)
        {
            if (exiting)
            {
                throw new IOException("not starting " + EXECUTABLE + ": the JVM is exiting");
            }
            final Process p = pb.start();
            LIVE.add(p);
            return p;
        }
    }

    /** Destroys {@code p} unless it ended, and waits for it. */
    private static void end(final Process p) throws InterruptedException
    {
        p.destroyForcibly().waitFor();
        synchronized (LIVE)
        {
            LIVE.remove(p);
        }
    }

    private static void destroyAll()
    {
        synchronized (LIVE)
        {
            exiting = true;
            LIVE.forEach(Process::destroyForcibly);
        }
    }
}
