package dev.spillway.ranks;

import dev.spillway.cli.CiOrSkip;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Two hosts on one machine: two network namespaces joined by a veth pair. The ends get 198.18.0.1/30 and
 * 198.18.0.2/30, from the benchmarking range 198.18.0.0/15 (RFC 2544); no end stays in the host's namespace and
 * neither namespace has a route beyond the /30, so traffic only flows between the two. Needs root and iproute2's
 * {@code ip}. {@link #close()} deletes both namespaces (and with them the veth pair); {@link #create()} first deletes
 * those left by an earlier test JVM that died before closing.
 */
final class NetnsPair implements AutoCloseable
{
    /** Namespaces made here are named {@code PREFIX + pid + "-" + n + "-a|b"}. */
    static final String PREFIX = "spillway-test-";
    static final String ADDRESS_A = "198.18.0.1";
    static final String ADDRESS_B = "198.18.0.2";
    private static final String MASK = "/30";
    private static final long COMMAND_SECONDS = 10;
    /** Safety net for a link to come up and answer; the waits below return as soon as it does. */
    private static final long REACH_MILLIS = 60_000;
    private static final AtomicInteger PAIRS = new AtomicInteger();

    private final String a;
    private final String b;
    private final String deviceA;
    private final String deviceB;

    private NetnsPair(final String a, final String b, final String deviceA, final String deviceB)
    {
        this.a = a;
        this.b = b;
        this.deviceA = deviceA;
        this.deviceB = deviceB;
    }

    /** @return why namespaces cannot be made here (not root, no {@code ip}), or null when they can. */
    static String unavailableReason()
    {
        final List<String> missing = new ArrayList<>();
        final long uid = effectiveUid();
        if (uid != 0)
        {
            missing.add("root (effective uid is " + uid + ")");
        }
        if (ipCommand() == null)
        {
            missing.add("iproute2's ip command (not on PATH, /usr/sbin or /sbin)");
        }
        return missing.isEmpty() ? null : "network namespaces need " + String.join(" and ", missing);
    }

    /** Fails under {@code CI=true} when namespaces cannot be made; otherwise skips the test, naming what is missing. */
    static void require()
    {
        final String reason = unavailableReason();
        CiOrSkip.require(reason == null, reason);
    }

    /**
     * @return a fresh pair, its links up and each end reaching the other.
     * @throws IOException naming the {@code ip} command that failed and its output; nothing is left behind.
     */
    static NetnsPair create() throws IOException
    {
        removeStale();
        final long pid = ProcessHandle.current().pid();
        final int n = PAIRS.incrementAndGet();
        final String stem = PREFIX + pid + "-" + n;
        final NetnsPair pair = new NetnsPair(stem + "-a", stem + "-b", "sw" + pid + "x" + n + "a",
            "sw" + pid + "x" + n + "b");
        try
        {
            pair.setUp();
        }
        catch (final IOException | RuntimeException ex)
        {
            try
            {
                pair.close();
            }
            catch (final IOException cleanup)
            {
                ex.addSuppressed(cleanup);
            }
            throw ex;
        }
        return pair;
    }

    private void setUp() throws IOException
    {
        ip("netns", "add", a);
        ip("netns", "add", b);
        ip("link", "add", deviceA, "netns", a, "type", "veth", "peer", "name", deviceB, "netns", b);
        ip("-n", a, "addr", "add", ADDRESS_A + MASK, "dev", deviceA);
        ip("-n", b, "addr", "add", ADDRESS_B + MASK, "dev", deviceB);
        for (final String[] end : new String[][] {{a, deviceA}, {b, deviceB}})
        {
            ip("-n", end[0], "link", "set", "lo", "up");
            ip("-n", end[0], "link", "set", end[1], "up");
        }
        awaitUp(a, deviceA);
        awaitUp(b, deviceB);
        awaitReachable(a, ADDRESS_B);
        awaitReachable(b, ADDRESS_A);
    }

    /**
     * Waits until {@code device} is operationally up. Packets flow as soon as the carrier is on, but the kernel sets
     * the RUNNING flag later (link watch, up to a second); UCX lists only running devices, so without this wait it
     * reports the veth end "not available".
     */
    private static void awaitUp(final String namespace, final String device) throws IOException
    {
        final long deadline = System.currentTimeMillis() + REACH_MILLIS;
        String last;
        do
        {
            last = run(List.of(ipCommand(), "-n", namespace, "-o", "link", "show", "dev", device)).output;
            if (last.contains(" state UP ") && !last.contains("NO-CARRIER"))
            {
                return;
            }
            sleep(50);
        }
        while (System.currentTimeMillis() < deadline);
        throw new IOException(device + " in namespace " + namespace + " is not up within " + REACH_MILLIS + " ms: " +
            last.strip());
    }

    /**
     * Connects from {@code namespace} to a closed TCP port at {@code address}: "Connection refused" means the peer's
     * stack answered, so the link carries traffic (there is no ping on slim images).
     */
    private static void awaitReachable(final String namespace, final String address) throws IOException
    {
        final long deadline = System.currentTimeMillis() + REACH_MILLIS;
        String last;
        do
        {
            last = run(List.of(ipCommand(), "netns", "exec", namespace, "timeout", "2", "bash", "-c",
                "exec 3<>/dev/tcp/" + address + "/9")).output;
            if (last.contains("Connection refused"))
            {
                return;
            }
            sleep(100);
        }
        while (System.currentTimeMillis() < deadline);
        throw new IOException(address + " is not reachable from namespace " + namespace + " within " + REACH_MILLIS +
            " ms: " + last.strip());
    }

    /** @return the namespace of the first end (198.18.0.1). */
    String a()
    {
        return a;
    }

    /** @return the namespace of the second end (198.18.0.2). */
    String b()
    {
        return b;
    }

    /** @return the veth end inside {@link #a()}. */
    String deviceA()
    {
        return deviceA;
    }

    /** @return the veth end inside {@link #b()}. */
    String deviceB()
    {
        return deviceB;
    }

    /** @return the command prefix that runs a program inside {@code namespace}. */
    static List<String> exec(final String namespace)
    {
        return List.of(ipCommand(), "netns", "exec", namespace);
    }

    /** @return bytes received plus bytes sent so far by {@code device} in {@code namespace}. */
    static long trafficBytes(final String namespace, final String device) throws IOException
    {
        long total = 0;
        for (final String counter : new String[] {"rx_bytes", "tx_bytes"})
        {
            final List<String> command = new ArrayList<>(exec(namespace));
            command.addAll(List.of("cat", "/sys/class/net/" + device + "/statistics/" + counter));
            final Result r = run(command);
            if (r.exit != 0)
            {
                throw new IOException(String.join(" ", command) + " failed (exit " + r.exit + "): " + r.output);
            }
            total += Long.parseLong(r.output.strip());
        }
        return total;
    }

    /** Deletes both namespaces, and the veth pair with them; a namespace already gone is fine. */
    @Override
    public void close() throws IOException
    {
        IOException failure = null;
        for (final String ns : new String[] {a, b})
        {
            try
            {
                delete(ns);
            }
            catch (final IOException ex)
            {
                if (failure == null)
                {
                    failure = ex;
                }
                else
                {
                    failure.addSuppressed(ex);
                }
            }
        }
        if (failure != null)
        {
            throw failure;
        }
    }

    @Override
    public String toString()
    {
        return a + "/" + deviceA + " " + ADDRESS_A + " <-> " + b + "/" + deviceB + " " + ADDRESS_B;
    }

    /** Deletes namespaces of this prefix whose test JVM is no longer alive. */
    private static void removeStale() throws IOException
    {
        for (final String ns : namespaces())
        {
            if (!ns.startsWith(PREFIX))
            {
                continue;
            }
            final String rest = ns.substring(PREFIX.length());
            final int dash = rest.indexOf('-');
            final long owner;
            try
            {
                owner = Long.parseLong(dash < 0 ? rest : rest.substring(0, dash));
            }
            catch (final NumberFormatException ex)
            {
                continue;
            }
            if (ProcessHandle.of(owner).map(ProcessHandle::isAlive).orElse(false))
            {
                continue;
            }
            delete(ns);
        }
    }

    private static void delete(final String ns) throws IOException
    {
        if (namespaces().contains(ns))
        {
            ip("netns", "delete", ns);
        }
    }

    private static List<String> namespaces() throws IOException
    {
        final Result r = run(List.of(ipCommand(), "netns", "list"));
        if (r.exit != 0)
        {
            throw new IOException("ip netns list failed (exit " + r.exit + "): " + r.output);
        }
        final List<String> names = new ArrayList<>();
        for (final String line : r.output.split("\n"))
        {
            final String name = line.strip().split(" ")[0];
            if (!name.isEmpty())
            {
                names.add(name);
            }
        }
        return names;
    }

    private static void ip(final String... args) throws IOException
    {
        final List<String> command = new ArrayList<>();
        command.add(ipCommand());
        command.addAll(List.of(args));
        final Result r = run(command);
        if (r.exit != 0)
        {
            throw new IOException(String.join(" ", command) + " failed (exit " + r.exit + "): " + r.output.strip());
        }
    }

    private static Result run(final List<String> command) throws IOException
    {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try
        {
            if (!p.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS))
            {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " ran past " + COMMAND_SECONDS + " s");
            }
        }
        catch (final InterruptedException ex)
        {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + String.join(" ", command), ex);
        }
        return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    private static String ipCommand()
    {
        final List<Path> candidates = new ArrayList<>();
        for (final String dir : System.getenv().getOrDefault("PATH", "").split(":"))
        {
            if (!dir.isEmpty())
            {
                candidates.add(Path.of(dir, "ip"));
            }
        }
        candidates.add(Path.of("/usr/sbin/ip"));
        candidates.add(Path.of("/sbin/ip"));
        for (final Path p : candidates)
        {
            if (Files.isExecutable(p))
            {
                return p.toString();
            }
        }
        return null;
    }

    private static long effectiveUid()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
            {
                if (line.startsWith("Uid:"))
                {
                    return Long.parseLong(line.substring(4).strip().split("\\s+")[1]);
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
        return -1;
    }

    private static void sleep(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private record Result(int exit, String output)
    {
    }
}
