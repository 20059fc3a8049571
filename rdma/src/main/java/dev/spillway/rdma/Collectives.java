package dev.spillway.rdma;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Small collectives built on two-sided messages, for set-up such as exchanging {@link WindowHandle}s. */
public final class Collectives
{
    private Collectives()
    {
    }

    /**
     * Every rank contributes {@code mine} and gets every rank's contribution. All ranks must call it with the same tag.
     *
     * @param transport this rank.
     * @param tag a tag no other traffic uses meanwhile.
     * @param mine this rank's bytes.
     * @param maxBytes the longest contribution of any rank.
     * @return contributions indexed by rank.
     * @throws TransportException when a rank is lost or the exchange times out.
     */
    public static byte[][] allGather(final Transport transport, final int tag, final byte[] mine, final int maxBytes)
    {
        final int size = transport.size();
        final int self = transport.rank();
        final ByteBuffer out = ByteBuffer.allocateDirect(Math.max(1, mine.length));
        out.put(mine).flip();
        final ByteBuffer[] in = new ByteBuffer[size];
        final CompletableFuture<?>[] receives = new CompletableFuture<?>[size];
        final CompletableFuture<?>[] sends = new CompletableFuture<?>[size];
        for (int r = 0; r < size; r++)
        {
            if (r != self)
            {
                in[r] = ByteBuffer.allocateDirect(Math.max(1, maxBytes));
                receives[r] = transport.receive(r, tag, in[r]);
            }
        }
        for (int r = 0; r < size; r++)
        {
            if (r != self)
            {
                sends[r] = transport.send(r, Header.of(tag), out);
            }
        }
        final byte[][] all = new byte[size][];
        all[self] = mine.clone();
        for (int r = 0; r < size; r++)
        {
            if (r != self)
            {
                await(sends[r]);
                final Message message = (Message)await(receives[r]);
                all[r] = new byte[message.length()];
                in[r].get(0, all[r]);
            }
        }
        return all;
    }

    /**
     * Exchanges window handles: every rank passes its own window and gets every rank's handle.
     *
     * @param transport this rank.
     * @param tag a tag no other traffic uses meanwhile.
     * @param window this rank's window.
     * @return handles indexed by rank.
     */
    public static WindowHandle[] exchange(final Transport transport, final int tag, final Window window)
    {
        final byte[][] all = allGather(transport, tag, window.handle().toBytes(), 64 * 1024);
        final WindowHandle[] handles = new WindowHandle[all.length];
        for (int r = 0; r < all.length; r++)
        {
            handles[r] = WindowHandle.fromBytes(all[r]);
        }
        return handles;
    }

    /** Returns when every rank called it with the same tag. */
    public static void barrier(final Transport transport, final int tag)
    {
        allGather(transport, tag, new byte[0], 1);
    }

    /**
     * A barrier a caller can stop waiting for (its operations stay posted, so use it only where giving up ends the
     * transport's use, as a rank's stop for a restart does).
     *
     * @return completes when every rank called it with the same tag; fails as its first failed operation.
     */
    public static CompletableFuture<Void> barrierAsync(final Transport transport, final int tag)
    {
        final List<CompletableFuture<?>> all = new ArrayList<>();
        final ByteBuffer empty = ByteBuffer.allocateDirect(1).limit(0);
        for (int r = 0; r < transport.size(); r++)
        {
            if (r != transport.rank())
            {
                all.add(transport.receive(r, tag, ByteBuffer.allocateDirect(1)));
            }
        }
        for (int r = 0; r < transport.size(); r++)
        {
            if (r != transport.rank())
            {
                all.add(transport.send(r, Header.of(tag), empty.duplicate()));
            }
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    /**
     * Waits for a transport future (which is always bounded by the transport's timeouts) and unwraps its failure.
     *
     * @param future a future of this package's transports.
     * @return its value.
     * @throws TransportException or the other unchecked failure of the operation.
     */
    public static <T> T await(final CompletableFuture<T> future)
    {
        try
        {
            return future.get();
        }
        catch (final ExecutionException | CompletionException ex)
        {
            final Throwable cause = ex.getCause();
            if (cause instanceof RuntimeException re)
            {
                throw re;
            }
            throw new TransportException("transport operation failed: " + cause, cause);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new TransportException("interrupted while waiting on a transport operation", ex);
        }
    }
}
