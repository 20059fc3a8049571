package dev.spillway.ranks;

import dev.spillway.rdma.Collectives;
import dev.spillway.rdma.Header;
import dev.spillway.rdma.Message;
import dev.spillway.rdma.TransportConfig;
import dev.spillway.rdma.UcxTransport;
import dev.spillway.rdma.Window;
import dev.spillway.rdma.WindowHandle;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;

/**
 * One of two ranks for {@link TwoHostsTest}, configured from the SPILLWAY_* environment with a non-loopback
 * coordinator allowed: rank 0 sends {@link #BYTES} to rank 1, which checks them and sends them back, each byte
 * changed; then each rank puts a pattern into the other's window and flushes, and after a barrier checks what it
 * received; finally rank 0 reads back with a get what it put. Prints {@code ROUNDTRIP rank R ok} and exits 0; any
 * mismatch throws, naming the rank, the step and the offset.
 */
public final class UcxRoundTrip
{
    /** Payload of the message and of the put: large enough for UCX's rendezvous protocol over TCP. */
    static final int BYTES = 4 << 20;
    private static final int TAG = 10;

    private UcxRoundTrip()
    {
    }

    public static void main(final String[] args)
    {
        final TransportConfig config = TransportConfig.fromEnvironment(System.getenv()).allowNonLoopback(true)
            .operationTimeout(Duration.ofSeconds(30)).build();
        final int rank = config.rank();
        final int peer = 1 - rank;
        try (UcxTransport t = UcxTransport.open(config);
            Window window = t.createWindow("roundtrip-" + rank, BYTES))
        {
            final WindowHandle[] handles = Collectives.exchange(t, 1, window);
            final ByteBuffer buffer = ByteBuffer.allocateDirect(BYTES).order(ByteOrder.nativeOrder());
            if (rank == 0)
            {
                Collectives.await(t.send(1, Header.of(TAG), fill(buffer, 1)));
                final Message back = Collectives.await(t.receive(1, TAG + 1, buffer.clear()));
                check(rank, "echo from rank 1 (" + back.length() + " bytes)", buffer, 2);
            }
            else
            {
                final Message m = Collectives.await(t.receive(0, TAG, buffer));
                check(rank, "message from rank 0 (" + m.length() + " bytes)", buffer, 1);
                Collectives.await(t.send(0, Header.of(TAG + 1), fill(buffer, 2)));
            }

            t.put(handles[peer], 0, fill(buffer, 10 + rank));
            Collectives.await(t.flush(peer));
            Collectives.barrier(t, 2);
            check(rank, "window after rank " + peer + "'s put", window.buffer(), 10 + peer);

            if (rank == 0)
            {
                t.get(handles[1], 0, buffer.clear());
                Collectives.await(t.flush(1));
                check(rank, "get from rank 1's window", buffer, 10);
            }
            Collectives.barrier(t, 3);
            System.out.println("ROUNDTRIP rank " + rank + " ok: " + BYTES + " bytes sent, put and got via " +
                config.coordinator());
        }
    }

    private static ByteBuffer fill(final ByteBuffer b, final int seed)
    {
        b.clear();
        for (int i = 0; i < b.capacity(); i += 8)
        {
            b.putLong(i, value(seed, i));
        }
        return b;
    }

    private static long value(final int seed, final int offset)
    {
        return (offset * 0x9E3779B97F4A7C15L) ^ seed;
    }

    private static void check(final int rank, final String what, final ByteBuffer b, final int seed)
    {
        for (int i = 0; i < BYTES; i += 8)
        {
            if (b.getLong(i) != value(seed, i))
            {
                throw new IllegalStateException("rank " + rank + ": " + what + " differs at offset " + i);
            }
        }
    }
}
