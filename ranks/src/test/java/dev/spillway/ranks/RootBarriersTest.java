package dev.spillway.ranks;

import dev.spillway.rdma.InProcessFabric;
import dev.spillway.rdma.PeerFailedException;
import dev.spillway.rdma.Transport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Three ranks in one JVM: barriers that rank 0 counts, through a loss and the lost rank's next incarnation. */
class RootBarriersTest
{
    private static final long LIMIT_SECONDS = 120;

    private InProcessFabric fabric;
    private final List<RootBarriers> opened = new ArrayList<>();
    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    private PeerSessions[] sessions;
    private RootBarriers[] barriers;
    private volatile boolean closing;

    @BeforeEach
    void start()
    {
        fabric = new InProcessFabric(3, Duration.ofSeconds(LIMIT_SECONDS));
        sessions = new PeerSessions[3];
        barriers = new RootBarriers[3];
        for (int r = 0; r < 3; r++)
        {
            open(r, fabric.transport(r));
        }
    }

    @AfterEach
    void stop()
    {
        opened.forEach(RootBarriers::close);
        fabric.close();
        assertTrue(failures.isEmpty(), "the barriers failed: " + failures);
    }

    private void open(final int rank, final Transport transport)
    {
        sessions[rank] = new PeerSessions(transport);
        transport.addPeerListener(sessions[rank]);
        barriers[rank] = new RootBarriers(transport, sessions[rank], () -> false, () -> closing, failures::add);
        barriers[rank].start();
        opened.add(barriers[rank]);
    }

    @Test
    void aBarrierIsReleasedOnceEveryRankArrived() throws Exception
    {
        final CompletableFuture<Void> one = barriers[1].arrive(0);
        final CompletableFuture<Void> two = barriers[2].arrive(0);
        until(() -> barriers[0].waitReason().startsWith("ranks [0] "), "rank 0 to count ranks 1 and 2");
        assertFalse(one.isDone() || two.isDone(), "released before rank 0 arrived");
        final CompletableFuture<Void> zero = barriers[0].arrive(0);
        passed(zero, one, two);
        passed(barriers[0].arrive(1), barriers[1].arrive(1), barriers[2].arrive(1));
    }

    @Test
    void aLostRanksArrivalStopsCountingAndItsNextIncarnationArrivesAgain() throws Exception
    {
        final CompletableFuture<Void> one = barriers[1].arrive(0);
        barriers[2].arrive(0);
        until(() -> barriers[0].waitReason().startsWith("ranks [0] "), "rank 0 to count ranks 1 and 2");
        fabric.kill(2, "killed by the test");
        until(() -> barriers[0].waitReason().startsWith("ranks [0, 2] "), "rank 0 to forget rank 2's arrival");
        final CompletableFuture<Void> zero = barriers[0].arrive(0);
        until(() -> barriers[0].waitReason().startsWith("ranks [2] "), "rank 0 to count itself");
        assertFalse(zero.isDone() || one.isDone(), "released without the lost rank's next incarnation");

        open(2, fabric.revive(2));
        sessions[0].markReady(2);
        sessions[1].markReady(2);
        passed(zero, one, barriers[2].arrive(0));
    }

    @Test
    void anIncarnationArrivingAtABarrierReleasedWithoutItIsReleasedAtOnce() throws Exception
    {
        passed(barriers[0].arrive(0), barriers[1].arrive(0), barriers[2].arrive(0));
        fabric.kill(2, "killed by the test");
        open(2, fabric.revive(2));
        sessions[0].markReady(2);
        passed(barriers[2].arrive(0));
    }

    @Test
    void rankZeroReleasesNoBarrierWhileAPeerIsNotReady() throws Exception
    {
        // What a recovery line that rolls rank 1 back does first, before rank 1's loss is seen.
        sessions[0].unready(1);
        final CompletableFuture<Void> zero = barriers[0].arrive(0);
        final CompletableFuture<Void> one = barriers[1].arrive(0);
        final CompletableFuture<Void> two = barriers[2].arrive(0);
        until(() -> barriers[0].waitReason().startsWith("every peer to be up"), "rank 0 to count every rank");
        assertFalse(zero.isDone() || one.isDone() || two.isDone(), "released while rank 1 was not ready");
        sessions[0].markReady(1);
        passed(zero, one, two);
    }

    @Test
    void rankZeroSendsItsReleaseBeforeItsOwnWaitEnds() throws Exception
    {
        final CompletableFuture<Void> one = barriers[1].arrive(0);
        final CompletableFuture<Void> two = barriers[2].arrive(0);
        until(() -> barriers[0].waitReason().startsWith("ranks [0] "), "rank 0 to count ranks 1 and 2");
        // What a rank 0 does that closes its transport as soon as its last barrier passed.
        final CompletableFuture<Void> zero = barriers[0].arrive(0).thenRun(() -> fabric.transport(0).close());
        passed(zero, one, two);
    }

    @Test
    void onceClosingRankZeroFailsTheBarrierALostRankHasNotArrivedAt()
    {
        closing = true;
        barriers[1].arrive(0);
        fabric.kill(2, "killed by the test");
        final ExecutionException e = assertThrows(ExecutionException.class,
            () -> barriers[0].arrive(0).get(LIMIT_SECONDS, TimeUnit.SECONDS));
        assertInstanceOf(PeerFailedException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("rank 2"), e.getCause().getMessage());
    }

    @Test
    void rankZerosLossEndsTheOthersWaits()
    {
        final CompletableFuture<Void> one = barriers[1].arrive(0);
        fabric.kill(0, "killed by the test");
        final ExecutionException e = assertThrows(ExecutionException.class,
            () -> one.get(LIMIT_SECONDS, TimeUnit.SECONDS));
        assertInstanceOf(PeerFailedException.class, e.getCause());
        final ExecutionException late = assertThrows(ExecutionException.class,
            () -> barriers[2].arrive(0).get(LIMIT_SECONDS, TimeUnit.SECONDS));
        assertInstanceOf(PeerFailedException.class, late.getCause());
    }

    @SafeVarargs
    private void passed(final CompletableFuture<Void>... waits) throws Exception
    {
        for (final CompletableFuture<Void> w : waits)
        {
            try
            {
                w.get(LIMIT_SECONDS, TimeUnit.SECONDS);
            }
            catch (final java.util.concurrent.TimeoutException e)
            {
                fail("no release in " + LIMIT_SECONDS + " s; rank 0 waits for " + barriers[0].waitReason());
            }
        }
    }

    private void until(final BooleanSupplier condition, final String what)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                fail("waited " + LIMIT_SECONDS + " s for " + what + "; rank 0 waits for " + barriers[0].waitReason());
            }
            LockSupport.parkNanos(1_000_000);
        }
    }
}
