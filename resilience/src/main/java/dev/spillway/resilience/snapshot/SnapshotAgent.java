package dev.spillway.resilience.snapshot;

import java.util.Arrays;
import java.util.BitSet;
import java.util.EnumSet;
import java.util.Set;

/**
 * One rank's control agent for checkpoint waves (spec §C.3): its {@link Mode}, its wave, its pending gets per
 * target and the markers it has received. It runs on the rank's control thread, never on a task thread (gap G10).
 *
 * <p>A wave starts at a rank when it {@link #initiate initiates} it or receives its first marker. The rank then
 * switches as its protocol says: with the partial double barrier it sends a {@code FLUSH} to every target with a
 * pending get and enters the wave once each has answered (FIFO puts the answer behind every response owed). It then
 * sends its markers and, once it holds one from every peer, checkpoints, returns to {@link Mode#NORMAL} and tells
 * every peer {@code DONE}. Until a peer's {@code DONE} arrives the rank starts no operation towards it (with Delay,
 * its NIC serves none of the peer's held requests either): nothing sent after a checkpoint lands before its
 * receiver's (gap G1). Markers of the next wave that arrive before this rank's checkpoint
 * are kept for it (gap G6).
 *
 * <p>Not thread-safe: one owner thread drives it.
 */
public final class SnapshotAgent
{
    private final int rank;
    private final int ranks;
    private final SnapshotProtocol protocol;
    private final SnapshotHost host;
    private final boolean holding;
    private final int[] pendingReads;
    /** Per peer, how many waves it has told this rank it checkpointed. */
    private final int[] doneBy;
    private final BitSet markers = new BitSet();
    private final BitSet nextWaveMarkers = new BitSet();
    private final BitSet secondMarkers = new BitSet();
    private final BitSet awaitingFlush = new BitSet();
    private final BitSet peeking = new BitSet();
    private final BitSet cleared = new BitSet();
    private Mode mode = Mode.NORMAL;
    private int wave;
    private boolean secondSent;

    /**
     * @param rank      this rank.
     * @param ranks     how many ranks the job has.
     * @param firstWave the wave this rank checkpoints next: 0 at the start, one past the restored wave after a
     *                  rollback. Every peer is taken to have checkpointed the waves before it.
     * @param protocol  how waves run.
     * @param host      sends this agent's messages and takes its checkpoints.
     */
    public SnapshotAgent(final int rank, final int ranks, final int firstWave, final SnapshotProtocol protocol,
        final SnapshotHost host)
    {
        this(rank, ranks, firstWave, protocol, host, EnumSet.noneOf(Mutation.class));
    }

    SnapshotAgent(final int rank, final int ranks, final int firstWave, final SnapshotProtocol protocol,
        final SnapshotHost host, final Set<Mutation> mutations)
    {
        this.rank = rank;
        this.ranks = ranks;
        this.protocol = protocol;
        this.host = host;
        this.holding = !mutations.contains(Mutation.NO_HOLDING);
        this.wave = firstWave;
        this.pendingReads = new int[ranks];
        this.doneBy = new int[ranks];
        Arrays.fill(doneBy, firstWave);
    }

    /** @return where this rank is in its current wave. */
    public Mode mode()
    {
        return mode;
    }

    /** @return the wave this rank checkpoints next. */
    public int wave()
    {
        return wave;
    }

    /**
     * Asks to start an operation towards {@code target}. When the answer is yes the caller must issue it at once,
     * before any other call; a {@link Operation#READ} is then pending until {@link #completed}. When it is no the
     * caller asks again after this agent has received a message (under peek-and-get it may have sent a peek).
     *
     * @param target the rank whose window the operation reaches.
     * @param operation what it is.
     * @return whether it starts now.
     */
    public boolean start(final int target, final Operation operation)
    {
        if (mode != Mode.NORMAL || holding && doneBy[target] < wave)
        {
            return false;
        }
        if (operation == Operation.WRITE)
        {
            return true;
        }
        if (protocol == SnapshotProtocol.PEEK_AND_GET && !cleared.get(target))
        {
            if (!peeking.get(target))
            {
                peeking.set(target);
                host.send(new ControlMessage(ControlMessage.Kind.PEEK, rank, target, 0));
            }
            return false;
        }
        cleared.clear(target);
        pendingReads[target]++;
        return true;
    }

    /**
     * Counts a read that was pending in the snapshot this rank restored (with {@link SnapshotProtocol#DELAY} a get
     * may overlap the cut): it is pending here as if started here, and its target's snapshot holds its request.
     *
     * @param target the rank it reads.
     */
    public void resumeRead(final int target)
    {
        pendingReads[target]++;
    }

    /**
     * The last response segment of a {@link Operation#READ} towards {@code target} has landed.
     *
     * @param target the rank it read.
     */
    public void completed(final int target)
    {
        if (pendingReads[target] == 0)
        {
            throw new IllegalStateException("rank " + rank + ": no read pending towards rank " + target);
        }
        pendingReads[target]--;
        if (protocol == SnapshotProtocol.PEEK_AND_GET && mode == Mode.SWITCHING && noPendingReads())
        {
            enterWave();
        }
    }

    /** Starts this rank's current wave unless it is in it already. */
    public void initiate()
    {
        if (mode == Mode.NORMAL)
        {
            beginSwitch();
        }
    }

    /**
     * Handles a control message addressed to this rank.
     *
     * @param message the message, in its channel's order.
     */
    public void receive(final ControlMessage message)
    {
        final int from = message.source();
        switch (message.kind())
        {
            case MARKER -> onMarker(from, message.wave());
            case SECOND_MARKER ->
            {
                expectCurrent(message);
                secondMarkers.set(from);
                checkDone();
            }
            case FLUSH -> host.send(new ControlMessage(ControlMessage.Kind.FLUSH_ACK, rank, from, message.wave()));
            case FLUSH_ACK -> onFlushAck(message);
            case DONE -> doneBy[from] = Math.max(doneBy[from], message.wave() + 1);
            case PEEK -> host.send(new ControlMessage(mode == Mode.CHECKPOINTING ? ControlMessage.Kind.PEEK_BUSY
                : ControlMessage.Kind.PEEK_CLEAR, rank, from, 0));
            case PEEK_CLEAR ->
            {
                peeking.clear(from);
                if (mode == Mode.NORMAL)
                {
                    cleared.set(from);
                }
            }
            case PEEK_BUSY -> peeking.clear(from);
            default -> throw new IllegalStateException("unknown control message " + message);
        }
    }

    /**
     * Whether this rank's NIC may serve a read request from {@code source} now. Only {@link SnapshotProtocol#DELAY}
     * ever says no: while this rank is checkpointing, and then until {@code source} has checkpointed every wave this
     * rank has, so that a delayed response never lands before its source's checkpoint (the seed note's §4 hole).
     *
     * @param source the rank that sent the request.
     * @return whether to serve it now rather than hold it.
     */
    public boolean mayServe(final int source)
    {
        return protocol != SnapshotProtocol.DELAY || mode != Mode.CHECKPOINTING && (!holding || doneBy[source] >= wave);
    }

    private void onMarker(final int from, final int markerWave)
    {
        if (markerWave < wave)
        {
            return;
        }
        if (markerWave > wave + 1)
        {
            throw new IllegalStateException("rank " + rank + " in wave " + wave + " got a marker of wave " + markerWave
                + " from rank " + from);
        }
        if (markerWave > wave)
        {
            nextWaveMarkers.set(from);
            return;
        }
        markers.set(from);
        if (mode == Mode.NORMAL)
        {
            beginSwitch();
        }
        checkDone();
    }

    private void onFlushAck(final ControlMessage message)
    {
        expectCurrent(message);
        awaitingFlush.clear(message.source());
        if (mode == Mode.SWITCHING && awaitingFlush.isEmpty())
        {
            enterWave();
        }
    }

    private void expectCurrent(final ControlMessage message)
    {
        if (message.wave() != wave || mode == Mode.NORMAL)
        {
            throw new IllegalStateException("rank " + rank + " (" + mode + ", wave " + wave + ") got " + message);
        }
    }

    private void beginSwitch()
    {
        mode = Mode.SWITCHING;
        cleared.clear();
        switch (protocol)
        {
            case PEEK_AND_GET ->
            {
                if (noPendingReads())
                {
                    enterWave();
                }
            }
            case PARTIAL_DOUBLE_BARRIER -> flushPendingReads();
            default -> enterWave();
        }
    }

    private void flushPendingReads()
    {
        for (int t = 0; t < ranks; t++)
        {
            if (pendingReads[t] > 0)
            {
                awaitingFlush.set(t);
                host.send(new ControlMessage(ControlMessage.Kind.FLUSH, rank, t, wave));
            }
        }
        if (awaitingFlush.isEmpty())
        {
            enterWave();
        }
    }

    private void enterWave()
    {
        mode = Mode.CHECKPOINTING;
        broadcast(ControlMessage.Kind.MARKER, wave);
        checkDone();
    }

    private void checkDone()
    {
        if (mode != Mode.CHECKPOINTING || markers.cardinality() < ranks - 1)
        {
            return;
        }
        if (protocol == SnapshotProtocol.DOUBLE_BARRIER)
        {
            if (!secondSent)
            {
                secondSent = true;
                broadcast(ControlMessage.Kind.SECOND_MARKER, wave);
            }
            if (secondMarkers.cardinality() < ranks - 1)
            {
                return;
            }
        }
        checkpoint();
    }

    private void checkpoint()
    {
        final int taken = wave;
        host.checkpoint(taken);
        mode = Mode.NORMAL;
        wave++;
        markers.clear();
        markers.or(nextWaveMarkers);
        nextWaveMarkers.clear();
        secondMarkers.clear();
        secondSent = false;
        if (holding)
        {
            broadcast(ControlMessage.Kind.DONE, taken);
        }
        if (!markers.isEmpty())
        {
            beginSwitch();
        }
    }

    private void broadcast(final ControlMessage.Kind kind, final int ofWave)
    {
        for (int q = 0; q < ranks; q++)
        {
            if (q != rank)
            {
                host.send(new ControlMessage(kind, rank, q, ofWave));
            }
        }
    }

    private boolean noPendingReads()
    {
        for (final int pending : pendingReads)
        {
            if (pending > 0)
            {
                return false;
            }
        }
        return true;
    }
}
