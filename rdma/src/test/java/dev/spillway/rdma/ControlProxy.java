package dev.spillway.rdma;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay between one rank and the coordinator, for its control connection, so that a test can cut the rank off
 * the control plane ({@link #cut()}) while its transport, and UCX's connections, keep running: the coordinator sees
 * the connection close and declares the rank lost, as it would for a partitioned rank.
 */
final class ControlProxy implements AutoCloseable
{
    private final InetSocketAddress coordinator;
    private final ServerSocket listener;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile boolean cut;

    ControlProxy(final InetSocketAddress coordinator)
    {
        this.coordinator = coordinator;
        try
        {
            listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        daemon(this::acceptAll, "control-proxy-" + listener.getLocalPort());
    }

    /** @return where the rank connects instead of the coordinator. */
    InetSocketAddress address()
    {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort());
    }

    /** Closes every relayed connection, and every later one at once. */
    void cut()
    {
        cut = true;
        sockets.forEach(s -> ControlConnection.closeQuietly(s));
    }

    @Override
    public void close()
    {
        cut();
        ControlConnection.closeQuietly(listener);
    }

    private void acceptAll()
    {
        while (!listener.isClosed())
        {
            final Socket rank;
            try
            {
                rank = listener.accept();
            }
            catch (final IOException ex)
            {
                return; // closed
            }
            sockets.add(rank);
            try
            {
                // The coordinator may not listen yet: the rank, closed without a greeting, retries.
                final Socket toCoordinator = new Socket(coordinator.getAddress(), coordinator.getPort());
                sockets.add(toCoordinator);
                if (cut)
                {
                    cut();
                }
                daemon(() -> pump(rank, toCoordinator), "control-proxy-up");
                daemon(() -> pump(toCoordinator, rank), "control-proxy-down");
            }
            catch (final IOException ex)
            {
                ControlConnection.closeQuietly(rank);
            }
        }
    }

    /** Copies {@code from} to {@code to} until either closes, then closes both. */
    private static void pump(final Socket from, final Socket to)
    {
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream())
        {
            final byte[] buffer = new byte[8192];
            int n;
            while ((n = in.read(buffer)) >= 0)
            {
                out.write(buffer, 0, n);
                out.flush();
            }
        }
        catch (final IOException ex)
        {
            // One side closed or was cut.
        }
        finally
        {
            ControlConnection.closeQuietly(from);
            ControlConnection.closeQuietly(to);
        }
    }

    private static void daemon(final Runnable task, final String name)
    {
        final Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }
}
