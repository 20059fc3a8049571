package dev.spillway.ranks;

import dev.spillway.rdma.PeerEvent;
import dev.spillway.rdma.PeerFailedException;
import dev.spillway.rdma.PeerListener;
import dev.spillway.rdma.Transport;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The barriers of a job that runs a message-logging protocol, counted by rank 0 so that they outlive a rank's loss.
 * Each rank tells rank 0 that it arrived at barrier k; rank 0 releases k once every rank's current incarnation
 * arrived and every peer is up and greeted, and tells the others. A lost incarnation's arrival stops counting: the
 * next incarnation arrives again, or skips a barrier the job passed without it (the hellos say how many), or is told
 * at once when rank 0 released it meanwhile. An all-to-all barrier cannot do this: a rank may pass it while another
 * fails on the same loss.
 */
final class RootBarriers implements PeerListener
{
    static final int ARRIVED_TAG = DistributedSpillway.FIRST_DATA_TAG - 11;
    static final int RELEASED_TAG = DistributedSpillway.FIRST_DATA_TAG - 12;

    private final Transport transport;
    private final PeerSessions sessions;
    private final CutMessages messages;
    private final ExecutorService executor;
    /** Rank 0, written on the executor under this: per rank, how many barriers its current incarnation arrived at. */
    private final long[] arrived;
    /** Rank 0, under this: the incarnation each count of {@link #arrived} is from. */
    private final int[] arrivedAs;
    /** Under this: waits on barriers not yet released, by barrier. */
    private final NavigableMap<Long, CompletableFuture<Void>> waiting = new TreeMap<>();
    /** Under this: barriers released (counted by rank 0, heard by the others). */
    private long released;

    private final BooleanSupplier noRecovery;
    private volatile boolean closed;

    /**
     * @param restarting true once this rank stops for a restart.
     * @param noRecovery true once this rank's runtime closes: no recovery brings a lost rank back any more, so rank 0
     *                   fails the barrier a lost rank has not arrived at.
     * @param failed told why the barriers cannot go on: the job must restart.
     */
    RootBarriers(final Transport transport, final PeerSessions sessions, final BooleanSupplier restarting,
        final BooleanSupplier noRecovery, final Consumer<String> failed)
    {
        this.transport = transport;
        this.sessions = sessions;
        this.noRecovery = noRecovery;
        this.executor = Executors.newSingleThreadExecutor(RankThreads.named(transport.rank(), "barriers"));
        this.messages = new CutMessages(transport, executor, () -> closed || restarting.getAsBoolean(), failed);
        this.messages.outliveLosses(sessions);
        this.arrived = new long[transport.size()];
        this.arrivedAs = new int[transport.size()];
    }

    void start()
    {
        if (transport.rank() == DistributedSpillway.ROOT)
        {
            for (int r = 1; r < transport.size(); r++)
            {
                final int peer = r;
                messages.listen(peer, ARRIVED_TAG, (incarnation, barrier) -> arrived(peer, incarnation, barrier));
            }
        }
        else
        {
            messages.listen(DistributedSpillway.ROOT, RELEASED_TAG, this::released);
        }
        transport.addPeerListener(this);
    }

    /** Stops listening; releases already decided still go out. */
    void close()
    {
        closed = true;
        transport.removePeerListener(this);
        executor.shutdown();
    }

    /**
     * Arrives at {@code barrier}.
     *
     * @return completes once rank 0 released it.
     */
    CompletableFuture<Void> arrive(final long barrier)
    {
        final CompletableFuture<Void> passed;
        synchronized (this)
        {
            passed = barrier < released ? CompletableFuture.completedFuture(null) :
                waiting.computeIfAbsent(barrier, b -> new CompletableFuture<>());
        }
        if (transport.rank() == DistributedSpillway.ROOT)
        {
            final int self = transport.incarnation();
            onExecutor(() -> arrived(DistributedSpillway.ROOT, self, barrier));
        }
        else
        {
            messages.send(DistributedSpillway.ROOT, ARRIVED_TAG, barrier);
            final String rootLost = transport.lostReason(DistributedSpillway.ROOT);
            if (rootLost != null)
            {
                passed.completeExceptionally(new PeerFailedException(DistributedSpillway.ROOT, "barrier", rootLost));
            }
        }
        return passed;
    }

    /** @return what a rank waiting at a barrier waits for. */
    synchronized String waitReason()
    {
        if (transport.rank() != DistributedSpillway.ROOT)
        {
            return "rank 0 to release barrier " + released + " (it releases a barrier once every rank arrived)";
        }
        final List<Integer> missing = new ArrayList<>();
        for (int r = 0; r < arrived.length; r++)
        {
            if (arrived[r] <= released)
            {
                missing.add(r);
            }
        }
        return missing.isEmpty() ? "every peer to be up and greeted (every rank arrived at barrier " + released + ")" :
            "ranks " + missing + " to arrive at barrier " + released + " (arrivals " + Arrays.toString(arrived) + ")";
    }

    /** Rank 0, on the executor: {@code incarnation} of {@code rank} arrived at {@code barrier}. */
    private void arrived(final int rank, final int incarnation, final long barrier)
    {
        if (rank != DistributedSpillway.ROOT && (incarnation != transport.incarnation(rank) ||
            transport.lostReason(rank) != null))
        {
            return; // a lost incarnation's late message: its successor arrives for itself
        }
        synchronized (this)
        {
            if (barrier >= released)
            {
                arrived[rank] = Math.max(arrived[rank], barrier + 1);
                arrivedAs[rank] = incarnation;
            }
            else if (rank != DistributedSpillway.ROOT)
            {
                // It started again and greeted the job before rank 0 released the barrier without it.
                messages.send(rank, RELEASED_TAG, barrier);
                return;
            }
        }
        release();
    }

    /**
     * Rank 0, on the executor: releases every barrier every rank arrived at, once every peer is up and greeted; once
     * no recovery runs, fails the barrier instead when a rank that has not arrived is lost.
     */
    private void release()
    {
        while (true)
        {
            final long next;
            synchronized (this)
            {
                next = released;
                for (int r = 0; r < arrived.length; r++)
                {
                    final String lost = arrived[r] <= next && r != transport.rank() ? transport.lostReason(r) : null;
                    if (lost != null && noRecovery.getAsBoolean())
                    {
                        failWaits(new PeerFailedException(r, "barrier " + next + " while closing", lost));
                        return;
                    }
                }
                if (Arrays.stream(arrived).min().orElseThrow() <= next)
                {
                    return;
                }
            }
            final CompletableFuture<Void> ready = everyPeerReady();
            if (!ready.isDone())
            {
                ready.thenRunAsync(this::release, executor);
                return;
            }
            // Sent before this rank's own wait ends: it may close its transport right after.
            messages.sendToOthers(RELEASED_TAG, next);
            released(next);
        }
    }

    /** @return completes once no recovery session holds sends and every peer is up and greeted. */
    private CompletableFuture<Void> everyPeerReady()
    {
        final List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int r = 1; r < transport.size(); r++)
        {
            all.add(sessions.ready(r));
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    }

    /** Fails every wait: no barrier waited for now will be released. */
    private void failWaits(final PeerFailedException why)
    {
        final List<CompletableFuture<Void>> failed;
        synchronized (this)
        {
            failed = new ArrayList<>(waiting.values());
            waiting.clear();
        }
        failed.forEach(f -> f.completeExceptionally(why));
    }

    private void onExecutor(final Runnable step)
    {
        try
        {
            executor.execute(step);
        }
        catch (final RejectedExecutionException closing)
        {
            // Closed meanwhile: nothing waits for the step any more.
        }
    }

    /** {@code barrier} is released. */
    private void released(final long barrier)
    {
        final List<CompletableFuture<Void>> passed = new ArrayList<>();
        synchronized (this)
        {
            released = Math.max(released, barrier + 1);
            final Map<Long, CompletableFuture<Void>> due = waiting.headMap(released);
            passed.addAll(due.values());
            due.clear();
        }
        passed.forEach(f -> f.complete(null));
    }

    /**
     * On rank 0, a lost incarnation's arrivals at barriers not yet released stop counting; elsewhere, rank 0's loss
     * ends every wait (the job restarts whole, and this rank's runtime may have stopped listening for it).
     */
    @Override
    public void onPeerEvent(final PeerEvent event)
    {
        if (event.kind() != PeerEvent.Kind.LOST || closed)
        {
            return;
        }
        if (transport.rank() != DistributedSpillway.ROOT)
        {
            if (event.rank() == DistributedSpillway.ROOT)
            {
                // On the executor, after a release rank 0 sent before it closed: its handler was queued first.
                onExecutor(() -> failWaits(new PeerFailedException(DistributedSpillway.ROOT, "barrier",
                    event.reason())));
            }
            return;
        }
        onExecutor(() ->
        {
            synchronized (this)
            {
                if (arrivedAs[event.rank()] <= event.incarnation())
                {
                    arrived[event.rank()] = Math.min(arrived[event.rank()], released);
                }
            }
            release();
        });
    }
}
