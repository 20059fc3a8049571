package dev.spillway.rdma;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import static dev.spillway.rdma.Collectives.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@link Transport} contract, run against each implementation by a subclass. */
abstract class TransportContract
{
    static final int RANKS = 3;
    static final Duration TIMEOUT = Duration.ofSeconds(100);
    static final Duration SHORT_TIMEOUT = Duration.ofMillis(600);

    private final List<Transport> opened = new ArrayList<>();

    /** @return {@code ranks} connected transports, indexed by rank, with the given operation timeout. */
    abstract Transport[] connect(int ranks, Duration operationTimeout);

    /** Makes rank {@code victim} of {@code group} disappear as abruptly as the implementation allows. */
    abstract void lose(Transport[] group, int victim);

    Transport[] group(final Duration operationTimeout)
    {
        final Transport[] group = connect(RANKS, operationTimeout);
        opened.addAll(List.of(group));
        return group;
    }

    @AfterEach
    void closeAll()
    {
        opened.forEach(Transport::close);
    }

    static ByteBuffer random(final int bytes, final long seed)
    {
        final byte[] b = new byte[bytes];
        new Random(seed).nextBytes(b);
        return ByteBuffer.allocateDirect(bytes).put(b).flip();
    }

    static ByteBuffer word(final long value)
    {
        return ByteBuffer.allocateDirect(8).order(java.nio.ByteOrder.nativeOrder()).putLong(0, value);
    }

    static byte[] bytes(final ByteBuffer b, final int from, final int length)
    {
        final byte[] out = new byte[length];
        b.get(from, out);
        return out;
    }

    @Test
    void sendCarriesHeaderAndPayloadIntoTheReceiveBufferAtItsPosition()
    {
        final Transport[] t = group(TIMEOUT);
        final ByteBuffer src = random(1 << 20, 1);
        final ByteBuffer dst = ByteBuffer.allocateDirect((1 << 20) + 64);
        dst.position(16);
        final CompletableFuture<Message> received = t[1].receive(0, 7, dst);
        await(t[0].send(1, new Header(Header.NO_RANK, 7, 3, 2, 99L), src));
        final Message m = await(received);
        assertEquals(new Header(0, 7, 3, 2, 99L, 0), m.header());
        assertEquals(1 << 20, m.length());
        assertArrayEquals(bytes(src, 0, 1 << 20), bytes(dst, 16, 1 << 20));
        assertEquals(0L, dst.getLong(0), "bytes before the receive buffer's position were written");
        assertEquals(16, dst.position(), "the receive moved the buffer's position");
    }

    @Test
    void sendBeforeReceiveIsMatchedLater()
    {
        final Transport[] t = group(TIMEOUT);
        final ByteBuffer src = random(100, 2);
        final CompletableFuture<Void> sent = t[2].send(0, Header.of(5), src);
        final ByteBuffer dst = ByteBuffer.allocateDirect(128);
        final Message m = await(t[0].receive(2, 5, dst));
        await(sent);
        assertEquals(2, m.header().rank());
        assertArrayEquals(bytes(src, 0, 100), bytes(dst, 0, 100));
    }

    @Test
    void anySourceReceivesFromEveryRank()
    {
        final Transport[] t = group(TIMEOUT);
        final CompletableFuture<Void> a = t[1].send(0, Header.of(5), random(8, 1));
        final CompletableFuture<Void> b = t[2].send(0, Header.of(5), random(8, 2));
        final Set<Integer> sources = new HashSet<>();
        for (int i = 0; i < 2; i++)
        {
            sources.add(await(t[0].receive(Transport.ANY_SOURCE, 5, ByteBuffer.allocateDirect(8))).header().rank());
        }
        await(a);
        await(b);
        assertEquals(Set.of(1, 2), sources);
    }

    @Test
    void messagesOfOneTagArriveInSendingOrderAndTagsSelect()
    {
        final Transport[] t = group(TIMEOUT);
        final List<CompletableFuture<Void>> sends = new ArrayList<>();
        for (int i = 0; i < 50; i++)
        {
            sends.add(t[0].send(1, new Header(Header.NO_RANK, 9, 0, 0, i), ByteBuffer.allocateDirect(4).putInt(0, i)));
        }
        sends.add(t[0].send(1, Header.of(10), ByteBuffer.allocateDirect(4).putInt(0, -1)));
        final ByteBuffer other = ByteBuffer.allocateDirect(4);
        assertEquals(10, await(t[1].receive(0, 10, other)).header().tag());
        assertEquals(-1, other.getInt(0));
        for (int i = 0; i < 50; i++)
        {
            final ByteBuffer dst = ByteBuffer.allocateDirect(4);
            final Message m = await(t[1].receive(0, 9, dst));
            assertEquals(i, m.header().seq());
            assertEquals(i, dst.getInt(0));
        }
        sends.forEach(Collectives::await);
    }

    @Test
    void emptyMessageAndSendToSelf()
    {
        final Transport[] t = group(TIMEOUT);
        final CompletableFuture<Message> r = t[1].receive(1, 3, ByteBuffer.allocateDirect(0));
        await(t[1].send(1, Header.of(3), ByteBuffer.allocateDirect(0)));
        assertEquals(new Message(new Header(1, 3, 0, 0, 0L, 0), 0), await(r));
    }

    @Test
    void messageLongerThanTheReceiveBufferFailsNamingTheSize()
    {
        final Transport[] t = group(TIMEOUT);
        final CompletableFuture<Message> r = t[1].receive(0, 4, ByteBuffer.allocateDirect(10));
        t[0].send(1, Header.of(4), random(100, 3));
        final TransportException e = assertThrows(TransportException.class, () -> await(r));
        assertTrue(e.getMessage().contains("10 bytes"), e.getMessage());
    }

    @Test
    void receiveNobodyAnswersTimesOutNamingTheRank()
    {
        final Transport[] t = group(SHORT_TIMEOUT);
        final long start = System.nanoTime();
        final CompletableFuture<Message> r = t[0].receive(2, 404, ByteBuffer.allocateDirect(8));
        final TransportTimeoutException e = assertThrows(TransportTimeoutException.class, () -> await(r));
        final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(2, e.rank());
        assertTrue(e.getMessage().contains("rank 2") && e.getMessage().contains("tag 404"), e.getMessage());
        assertTrue(ms >= SHORT_TIMEOUT.toMillis() - 50 && ms < 5_000, "timed out after " + ms + " ms");
    }

    @Test
    void badArgumentsAreRefusedAtTheCall()
    {
        final Transport[] t = group(TIMEOUT);
        assertThrows(IllegalArgumentException.class, () -> t[0].send(1, Header.of(1), ByteBuffer.allocate(8)));
        assertThrows(IllegalArgumentException.class, () -> t[0].send(5, Header.of(1), ByteBuffer.allocateDirect(8)));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> t[0].send(1, new Header(2, 1, 0, 0, 0), ByteBuffer.allocateDirect(8)));
        assertTrue(e.getMessage().contains("rank 2"), e.getMessage());
        final IllegalArgumentException i = assertThrows(IllegalArgumentException.class,
            () -> t[0].send(1, new Header(0, 1, 0, 0, 0, 4), ByteBuffer.allocateDirect(8)));
        assertTrue(i.getMessage().contains("incarnation 4"), i.getMessage());
    }

    @Test
    void putAndGetReachThePassiveTargetAfterFlush()
    {
        final Transport[] t = group(TIMEOUT);
        final Window[] windows = new Window[RANKS];
        final WindowHandle[][] handles = exchangeWindows(t, windows, 1 << 20);
        final ByteBuffer src = random(256 * 1024, 4);
        t[0].put(handles[0][1], 4096, src);
        await(t[0].flush(1));
        final ByteBuffer target = windows[1].buffer();
        assertArrayEquals(bytes(src, 0, src.remaining()), bytes(target, 4096, src.remaining()));
        assertEquals(0L, target.getLong(0), "the put wrote before its offset");
        final ByteBuffer back = ByteBuffer.allocateDirect(src.remaining());
        t[2].get(handles[2][1], 4096, back);
        await(t[2].flush(1));
        assertArrayEquals(bytes(src, 0, src.remaining()), bytes(back, 0, back.remaining()));
    }

    @Test
    void registeredCallerMemoryIsTheWindow()
    {
        final Transport[] t = group(TIMEOUT);
        final ByteBuffer mine = ByteBuffer.allocateDirect(4096 + 64);
        mine.position(64);
        final Window w = t[1].registerWindow("mine", mine);
        assertEquals(4096, w.size());
        final WindowHandle h = WindowHandle.fromBytes(w.handle().toBytes());
        assertEquals(w.handle(), h);
        t[0].put(h, 8, word(0x1234_5678_9abcL));
        await(t[0].flush(1));
        assertEquals(0x1234_5678_9abcL, mine.order(java.nio.ByteOrder.nativeOrder()).getLong(64 + 8));
        w.close();
    }

    @Test
    void flushAllCompletesPutsToEveryRank()
    {
        final Transport[] t = group(TIMEOUT);
        final Window[] windows = new Window[RANKS];
        final WindowHandle[][] handles = exchangeWindows(t, windows, 64 * 1024);
        for (int r = 0; r < RANKS; r++)
        {
            t[0].put(handles[0][r], 0, word(100 + r));
        }
        await(t[0].flushAll());
        for (int r = 0; r < RANKS; r++)
        {
            assertEquals(100 + r, windows[r].buffer().getLong(0));
        }
    }

    @Test
    void accessOutsideTheWindowIsRefusedNamingWindowOffsetLengthAndSize()
    {
        final Transport[] t = group(TIMEOUT);
        final Window[] windows = new Window[RANKS];
        final WindowHandle[][] handles = exchangeWindows(t, windows, 4096);
        final WindowBoundsException e = assertThrows(WindowBoundsException.class,
            () -> t[0].put(handles[0][1], 4000, ByteBuffer.allocateDirect(100)));
        for (final String part : new String[] {"'w1'", "rank 1", "offset 4000", "length 100", "size 4096"})
        {
            assertTrue(e.getMessage().contains(part), e.getMessage() + " lacks " + part);
        }
        assertThrows(WindowBoundsException.class, () -> t[0].get(handles[0][1], -8, ByteBuffer.allocateDirect(8)));
        assertThrows(WindowBoundsException.class,
            () -> t[0].put(handles[0][1], Long.MAX_VALUE - 2, ByteBuffer.allocateDirect(8)));
        assertThrows(WindowBoundsException.class, () -> t[0].fetchAndAdd(handles[0][1], 4096, 1));
        assertThrows(IllegalArgumentException.class, () -> t[0].fetchAndAdd(handles[0][1], 12, 1));
        await(t[0].flush(1));
        assertEquals(0L, windows[1].buffer().getLong(4088), "a refused put still wrote");
    }

    @Test
    void fetchAndAddIsAtomicAcrossRanksAndCompareAndSwapSwapsOnlyOnMatch() throws Exception
    {
        final Transport[] t = group(TIMEOUT);
        final Window[] windows = new Window[RANKS];
        final WindowHandle[][] handles = exchangeWindows(t, windows, 4096);
        final int perRank = 200;
        final List<CompletableFuture<List<Long>>> workers = new ArrayList<>();
        for (int r = 0; r < RANKS; r++)
        {
            final int rank = r;
            workers.add(CompletableFuture.supplyAsync(() ->
            {
                final List<Long> old = new ArrayList<>();
                for (int i = 0; i < perRank; i++)
                {
                    old.add(await(t[rank].fetchAndAdd(handles[rank][1], 64, 1)));
                }
                return old;
            }));
        }
        final Set<Long> seen = new HashSet<>();
        for (final CompletableFuture<List<Long>> w : workers)
        {
            for (final long v : w.get(60, TimeUnit.SECONDS))
            {
                assertTrue(seen.add(v), "two fetchAndAdds returned " + v);
            }
        }
        assertEquals(RANKS * perRank, windows[1].buffer().getLong(64));
        assertEquals(RANKS * perRank, seen.size());
        assertEquals(RANKS * perRank, await(t[2].compareAndSwap(handles[2][1], 64, 600, 7)));
        assertEquals(7L, await(t[0].compareAndSwap(handles[0][1], 64, 600, 9)), "a failed CAS returns the word");
        assertEquals(7L, windows[1].buffer().getLong(64), "a failed CAS changed the word");
    }

    @Test
    void lostPeerFailsWaitingAndLaterOperationsNamingTheRank()
    {
        final Transport[] t = group(TIMEOUT);
        final Window[] windows = new Window[RANKS];
        final WindowHandle[][] handles = exchangeWindows(t, windows, 4096);
        windows[0].buffer().putLong(0, 42L);
        final CompletableFuture<Message> waiting = t[0].receive(2, 8, ByteBuffer.allocateDirect(8));
        final long start = System.nanoTime();
        lose(t, 2);
        final PeerFailedException e = assertThrows(PeerFailedException.class, () -> await(waiting));
        final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(2, e.rank());
        assertTrue(e.getMessage().contains("rank 2"), e.getMessage());
        assertTrue(ms < TIMEOUT.toMillis() / 2, "the loss took " + ms + " ms to surface");
        assertNotNull(t[0].lostReason(2));
        final CompletionException sendFailure = assertThrows(CompletionException.class,
            () -> t[0].send(2, Header.of(1), ByteBuffer.allocateDirect(8)).join());
        assertInstanceOf(PeerFailedException.class, sendFailure.getCause());
        t[1].put(handles[1][2], 0, ByteBuffer.allocateDirect(8));
        assertEquals(2, assertThrows(PeerFailedException.class, () -> await(t[1].flush(2))).rank());
        assertInstanceOf(PeerFailedException.class, assertThrows(CompletionException.class,
            () -> t[0].fetchAndAdd(handles[0][2], 0, 1).join()).getCause());
        t[1].put(handles[1][0], 8, word(43L));
        await(t[1].flushAll());
        assertEquals(42L, windows[0].buffer().getLong(0), "survivor's data changed");
        assertEquals(43L, windows[0].buffer().getLong(8), "survivors no longer reach each other");
    }

    /** Each rank creates window "w{rank}"; returns handles[viewer][owner]. */
    static WindowHandle[][] exchangeWindows(final Transport[] t, final Window[] windows, final int size)
    {
        final List<CompletableFuture<WindowHandle[]>> all = new ArrayList<>();
        for (int r = 0; r < t.length; r++)
        {
            windows[r] = t[r].createWindow("w" + r, size);
            final int rank = r;
            all.add(CompletableFuture.supplyAsync(() -> Collectives.exchange(t[rank], 77, windows[rank])));
        }
        final WindowHandle[][] handles = new WindowHandle[t.length][];
        for (int r = 0; r < t.length; r++)
        {
            handles[r] = all.get(r).join();
            assertEquals(windows[r].handle(), handles[r][r]);
        }
        return handles;
    }
}
