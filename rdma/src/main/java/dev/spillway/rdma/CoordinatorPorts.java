package dev.spillway.rdma;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks a loopback port for a coordinator that binds it later, in another thread or process. A port the kernel
 * hands out for port 0 lies in its ephemeral range, from which it also takes the local ports of new connections and
 * of other port-0 binds: one of those can take it before the coordinator binds (seen in CI: a relaunched rank 0
 * failed with "Address already in use"). So this picks a free port below that range, where only an explicit bind
 * can collide.
 */
public final class CoordinatorPorts
{
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int DEFAULT_EPHEMERAL_LOW = 32768;
    private static final int TRIES = 64;

    private CoordinatorPorts()
    {
    }

    /** @return a loopback address free now, with a port below the kernel's ephemeral range when it has room. */
    public static InetSocketAddress freeLoopback()
    {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        final int high = ephemeralLow();
        final int low = high / 2;
        for (int i = 0; i < TRIES && low > 1024; i++)
        {
            final int port = ThreadLocalRandom.current().nextInt(low, high);
            if (free(loopback, port))
            {
                return new InetSocketAddress(loopback, port);
            }
        }
        try (ServerSocket s = new ServerSocket(0, 1, loopback))
        {
            return new InetSocketAddress(loopback, s.getLocalPort());
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot find a free loopback port", e);
        }
    }

    private static boolean free(final InetAddress address, final int port)
    {
        try
        {
            new ServerSocket(port, 1, address).close();
            return true;
        }
        catch (final BindException taken)
        {
            return false;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("cannot probe loopback port " + port, e);
        }
    }

    /** @return the first port of the kernel's ephemeral range, or the common default where it cannot be read. */
    static int ephemeralLow()
    {
        try
        {
            // Files.readString reads one byte of this procfs file (its size is 0): read it as lines.
            return Integer.parseInt(Files.readAllLines(EPHEMERAL_RANGE).get(0).trim().split("\\s+")[0]);
        }
        catch (final IOException | RuntimeException e)
        {
            return DEFAULT_EPHEMERAL_LOW;
        }
    }
}
