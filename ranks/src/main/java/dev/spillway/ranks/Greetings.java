package dev.spillway.ranks;

import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.rdma.Header;
import dev.spillway.rdma.Message;
import dev.spillway.rdma.Transport;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;

import static java.lang.System.Logger.Level.DEBUG;
import static java.lang.System.Logger.Level.INFO;
import static java.lang.System.Logger.Level.WARNING;

/**
 * The hellos of a message-logging protocol between a rank that started again and each peer: each tells the other
 * what it holds of its transfers ({@link RankProtocol#hello}); the peer then skips and acknowledges those, sends the
 * others again from their captured payloads, in ssn order, and only then lets its transfers to the rank go. A rank
 * answers the first hello of each incarnation of a peer with its own. A hello also carries how many barriers its
 * sender passed: a rank that started again skips the barriers the job passed without it.
 */
final class Greetings
{
    static final int HELLO_TAG = DistributedSpillway.FIRST_DATA_TAG - 9;
    private static final System.Logger LOG = System.getLogger(Greetings.class.getName());
    private static final int MAX_HELLO = 1 << 20;

    private final Transport transport;
    private final Spillway local;
    private final RankProtocol protocol;
    private final PeerSessions sessions;
    private final Function<Data, Integer> wireTag;
    private final BooleanSupplier stopped;
    private final Consumer<String> failed;
    private final ExecutorService replays;
    /** Per peer: the incarnation this rank last greeted, or -1. */
    private final int[] greeted;
    /** Per peer: how many barriers it had passed when it greeted this rank. */
    private final long[] barriers;
    private final LongSupplier passed;

    /**
     * @param wireTag the transport tag of a data object's transfers.
     * @param passed  how many barriers this rank passed.
     * @param failed  told why the protocol cannot go on: the job must restart.
     */
    Greetings(final Transport transport, final Spillway local, final RankProtocol protocol,
        final PeerSessions sessions, final Function<Data, Integer> wireTag, final LongSupplier passed,
        final BooleanSupplier stopped, final Consumer<String> failed)
    {
        this.passed = passed;
        this.barriers = new long[transport.size()];
        this.transport = transport;
        this.local = local;
        this.protocol = protocol;
        this.sessions = sessions;
        this.wireTag = wireTag;
        this.stopped = stopped;
        this.failed = failed;
        this.greeted = new int[transport.size()];
        Arrays.fill(greeted, -1);
        this.replays = Executors.newSingleThreadExecutor(RankThreads.named(transport.rank(), "replays"));
    }

    /**
     * Listens to every peer. A rank that started again greets them all first, whether it resumed from the protocol's
     * state or from the beginning (lost before any cut was committed): the peers hold its transfers until it does.
     */
    void start()
    {
        final boolean startedAgain = protocol.resumed() || transport.incarnation() > 0;
        for (int r = 0; r < transport.size(); r++)
        {
            if (r == transport.rank())
            {
                continue;
            }
            if (startedAgain)
            {
                sessions.unready(r);
                greet(r);
            }
            final int peer = r;
            StandingReceive.start(transport, sessions, peer, HELLO_TAG, ByteBuffer.allocateDirect(MAX_HELLO), stopped,
                Runnable::run, (m, buffer) -> taken(peer, m, buffer));
        }
    }

    void close()
    {
        replays.shutdownNow();
    }

    /** @return the most barriers a peer had passed when it last greeted this rank. */
    synchronized long passedByPeers()
    {
        return Arrays.stream(barriers).max().orElse(0);
    }

    private void greet(final int peer)
    {
        final byte[] hello = protocol.hello(peer);
        synchronized (this)
        {
            greeted[peer] = transport.incarnation(peer);
        }
        final ByteBuffer b = ByteBuffer.allocateDirect(Long.BYTES + hello.length).putLong(passed.getAsLong())
            .put(hello).flip();
        transport.send(peer, Header.of(HELLO_TAG), b).whenComplete((ignored, failure) ->
        {
            if (failure != null)
            {
                LOG.log(DEBUG, "spillway: hello to rank " + peer + " failed (it greets this rank when it rejoins): " +
                    failure);
            }
        });
    }

    private boolean taken(final int peer, final Message m, final ByteBuffer buffer)
    {
        final byte[] hello = new byte[m.length() - Long.BYTES];
        final long peerBarriers = buffer.getLong(0);
        buffer.get(Long.BYTES, hello);
        synchronized (this)
        {
            barriers[peer] = peerBarriers;
        }
        // Not while a recovery session decides whether this rank rolls back: its hello would then be wrong.
        sessions.released().thenRunAsync(() -> greetedBy(peer, m.header().incarnation(), hello), replays);
        return true;
    }

    /** On the replay thread: answers a new incarnation, sends the peer's replays in order, then lets transfers go. */
    private void greetedBy(final int peer, final int incarnation, final byte[] hello)
    {
        if (stopped.getAsBoolean())
        {
            return;
        }
        try
        {
            final boolean answer;
            synchronized (this)
            {
                answer = greeted[peer] != incarnation;
            }
            if (answer)
            {
                greet(peer);
            }
            final List<RankProtocol.Replay> list;
            synchronized (sessions.posting(peer))
            {
                list = protocol.greeted(peer, hello);
                for (final RankProtocol.Replay r : list)
                {
                    replay(peer, r);
                }
            }
            LOG.log(INFO, "spillway: rank " + transport.rank() + " greeted by rank " + peer + " (incarnation " +
                incarnation + "): " + list.size() + " transfer(s) sent again");
            sessions.markReady(peer);
        }
        catch (final RuntimeException ex)
        {
            LOG.log(WARNING, "spillway: rank " + transport.rank() + " cannot answer rank " + peer + "'s hello: " + ex);
            failed.accept("it cannot send rank " + peer + " what it lost (" + ex.getMessage() + ")");
        }
    }

    /** Sends one transfer again from its captured payload: its notice, then its data, as the first time. */
    private void replay(final int peer, final RankProtocol.Replay r)
    {
        final Data object = local.lookup(r.tag());
        final ByteBuffer data = protocol.payload(r.logTag());
        if (object == null || data == null)
        {
            throw new IllegalStateException("the payload of '" + r.tag() + "' v" + r.version() + " (transfer " +
                r.stamp().ssn() + " to rank " + peer + ") is not held here any more");
        }
        final int tag = wireTag.apply(object);
        final ByteBuffer ssn = ByteBuffer.allocateDirect(Long.BYTES).putLong(0, r.stamp().ssn());
        transport.send(peer, new Header(Header.NO_RANK, tag + RankTransfer.NOTICE_TAG_OFFSET, r.stamp().epoch(),
            r.stamp().phase(), r.version()), ssn);
        transport.send(peer, new Header(Header.NO_RANK, tag, r.stamp().epoch(), r.stamp().phase(), r.version()), data);
    }
}
