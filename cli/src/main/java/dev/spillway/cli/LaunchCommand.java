package dev.spillway.cli;

import dev.spillway.rdma.TransportConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * {@code spillway launch -n N <command ...>}: starts N ranks of {@code spillway <command ...>} on this host, each a
 * JVM with this one's flags, joined through a rendezvous on loopback with a fresh secret. Rank 0's standard output
 * is this command's; everything else is prefixed with its rank on standard error. When one rank fails, the others
 * are stopped after a grace period, so a launch never outlives its job. SIGINT or SIGTERM to the launcher is passed
 * on to every rank as SIGTERM (each cancels its run and removes its spill files); ranks still running after
 * {@link #STOP_MS} are killed, and the launcher exits 130 or 143 once none is left.
 */
@Command(name = "launch", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Start N local ranks of a spillway command (e.g. `launch -n 2 run lu --n 8192`).",
        "To place ranks on several hosts, start `spillway <command>` yourself with SPILLWAY_RANK, SPILLWAY_SIZE, " +
            "SPILLWAY_COORDINATOR (rank 0's host:port) and SPILLWAY_SECRET set; see the README (Slurm, mpirun, ssh)."},
    footer = {"", "Exit status: the first failing rank's, else 0; 130 or 143 after SIGINT or SIGTERM, which stop " +
        "every rank."})
final class LaunchCommand implements Callable<Integer>
{
    private static final long GRACE_MS = 15_000;
    /** How long interrupted ranks get to cancel and clean up (RunCommand's limits, and a JVM exit) before SIGKILL. */
    static final long STOP_MS = RunCommand.CANCEL_MS + RunCommand.REMOVE_MS + 5_000;

    @Option(names = "-n", paramLabel = "N", required = true, description = "Ranks to start.")
    private int ranks;

    @Parameters(arity = "1..*", paramLabel = "COMMAND", description = "The spillway subcommand and its arguments.")
    private List<String> command;

    @Override
    public Integer call() throws Exception
    {
        if (ranks < 1)
        {
            throw new IllegalArgumentException("-n must be at least 1, got " + ranks);
        }
        if (command.get(0).equals("launch"))
        {
            throw new IllegalArgumentException("launch cannot launch itself");
        }
        final String secret = HexFormat.of().formatHex(SecureRandom.getInstanceStrong().generateSeed(32));
        final String coordinator = "127.0.0.1:" + freePort();
        final String heap = Runtime.getRuntime().maxMemory() / (1 << 20) + "m";
        final List<Process> processes = new ArrayList<>();
        final List<Thread> pumps = new ArrayList<>();
        try (Interrupts.Action stop = Interrupts.onInterrupt("stop ranks", STOP_MS + 5_000,
            () -> stop(processes)))
        {
            for (int r = 0; r < ranks; r++)
            {
                final ProcessBuilder pb = new ProcessBuilder(ChildJvm.command(heap, command));
                pb.environment().put(TransportConfig.RANK_ENV, Integer.toString(r));
                pb.environment().put(TransportConfig.SIZE_ENV, Integer.toString(ranks));
                pb.environment().put(TransportConfig.COORDINATOR_ENV, coordinator);
                pb.environment().put(TransportConfig.SECRET_ENV, secret);
                pb.environment().putIfAbsent("UCX_NET_DEVICES", "lo");
                final Process p;
                synchronized (processes)
                {
                    if (Interrupts.requested())
                    {
                        break;
                    }
                    p = pb.start();
                    processes.add(p);
                }
                final String prefix = "[rank " + r + "] ";
                final boolean toOut = r == 0;
                pumps.add(pump(p.getInputStream(), () -> toOut ? System.out : System.err, toOut ? "" : prefix));
                pumps.add(pump(p.getErrorStream(), () -> System.err, prefix));
            }
            final int status = await(processes);
            for (final Thread t : pumps)
            {
                t.join(5_000);
            }
            return status;
        }
        finally
        {
            for (final Process p : processes)
            {
                p.destroyForcibly();
            }
        }
    }

    /** Waits for every rank; once one fails, gives the rest the grace period to report, then kills them. */
    private static int await(final List<Process> processes) throws InterruptedException
    {
        int status = 0;
        long deadline = Long.MAX_VALUE;
        final boolean[] reported = new boolean[processes.size()];
        int running = processes.size();
        while (running > 0)
        {
            running = 0;
            for (int r = 0; r < processes.size(); r++)
            {
                final Process p = processes.get(r);
                if (p.isAlive())
                {
                    running++;
                    continue;
                }
                if (!reported[r])
                {
                    reported[r] = true;
                    if (p.exitValue() != 0 && status == 0)
                    {
                        status = p.exitValue();
                        System.err.println("spillway launch: rank " + r + " exited with status " + status +
                            "; stopping the others within " + GRACE_MS / 1000 + " s");
                        deadline = System.currentTimeMillis() + GRACE_MS;
                    }
                }
            }
            if (running > 0 && System.currentTimeMillis() > deadline)
            {
                for (int r = 0; r < processes.size(); r++)
                {
                    if (processes.get(r).isAlive())
                    {
                        System.err.println("spillway launch: killing rank " + r);
                        processes.get(r).destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    }
                }
                return status;
            }
            if (running > 0)
            {
                Thread.sleep(50);
            }
        }
        return status;
    }

    /** Sends SIGTERM to every rank, waits up to {@link #STOP_MS} for all, then kills those left and reaps them. */
    private static void stop(final List<Process> started)
    {
        final List<Process> processes;
        synchronized (started)
        {
            processes = new ArrayList<>(started);
        }
        processes.forEach(Process::destroy);
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_MS);
        try
        {
            for (final Process p : processes)
            {
                p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            for (final Process p : processes)
            {
                p.destroyForcibly().waitFor(2, TimeUnit.SECONDS);
            }
        }
        catch (final InterruptedException e)
        {
            processes.forEach(Process::destroyForcibly);
        }
    }

    /** Copies lines of {@code in} to the stream {@code out} names when each is printed (silent after an interrupt). */
    private static Thread pump(final InputStream in, final Supplier<PrintStream> out, final String prefix)
    {
        final Thread t = new Thread(() ->
        {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = r.readLine()) != null)
                {
                    out.get().println(prefix + line);
                }
            }
            catch (final IOException ignored)
            {
                // the rank ended
            }
        }, "spillway-launch-output");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return s.getLocalPort();
        }
    }
}
