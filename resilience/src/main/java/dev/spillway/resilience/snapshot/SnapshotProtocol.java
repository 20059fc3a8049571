package dev.spillway.resilience.snapshot;

/**
 * How a checkpoint wave keeps one-sided operations off the cut (seed 002 §IV). A data leg (put data or get response)
 * <em>crosses</em> the cut when it is sent before its sender's checkpoint and applied after its receiver's, or the
 * other way round; a get <em>overlaps</em> the cut when its source checkpoints between its request and its last
 * response segment.
 */
public enum SnapshotProtocol
{
    /** Chandy–Lamport markers only: n(n−1) messages; a get's response can cross the cut. A negative control. */
    VANILLA(false, false),
    /**
     * The target's NIC holds read requests while its rank is checkpointing: n(n−1) messages, no crossing, but a get
     * may overlap the cut, so the held requests belong in the snapshot. Needs a NIC that can hold requests.
     */
    DELAY(false, true),
    /**
     * Before each get the source reads the target's mode and polls while it is checkpointing; a rank defers entering
     * a wave until its gets complete. One extra round trip per get.
     */
    PEEK_AND_GET(true, true),
    /** Two all-to-all marker circulations; the checkpoint follows the second: 2n(n−1) messages. */
    DOUBLE_BARRIER(true, true),
    /**
     * One circulation, preceded at each rank by a flush round trip towards every target with a pending get:
     * n(n−1) + 2g messages for g flushed (source, target) pairs, at most 2n(n−1). The default.
     */
    PARTIAL_DOUBLE_BARRIER(true, true);

    /** The protocol to use unless a test asks for another. */
    public static final SnapshotProtocol DEFAULT = PARTIAL_DOUBLE_BARRIER;

    private final boolean noOverlap;
    private final boolean noCrossing;

    SnapshotProtocol(final boolean noOverlap, final boolean noCrossing)
    {
        this.noOverlap = noOverlap;
        this.noCrossing = noCrossing;
    }

    /** @return whether no get overlaps a cut of this protocol (seed 002 Table I, column "Overlap"). */
    public boolean guaranteesNoOverlap()
    {
        return noOverlap;
    }

    /**
     * @return whether no data leg crosses a cut of this protocol (Table I, column "Cross"), given that a rank holds
     *         its operations towards a peer after its checkpoint until the peer has checkpointed.
     */
    public boolean guaranteesNoCrossing()
    {
        return noCrossing;
    }
}
