package dev.spillway.resilience.p2f;

/**
 * What a receiver does with an arriving transfer.
 *
 * @param deliver      true for a first reception: the payload goes to the program; false for a duplicate, dropped.
 * @param ackEpoch     the epoch to acknowledge with: the reception's epoch, also for a duplicate (its original one);
 *                     {@link #NO_ACK} when nothing is acknowledged.
 * @param phase        for a first reception, the phase it carries to what consumes it: the sender's phase, plus one
 *                     if logged ("the causality path is broken"); pass it to {@link PastToFuture#consumed}.
 * @param clearedPhase a phase whose last pending orphan this duplicate was, or {@link #NO_PHASE}.
 */
public record Reception(boolean deliver, int ackEpoch, int phase, int clearedPhase)
{
    /** {@link #ackEpoch} when no acknowledgement is sent. */
    public static final int NO_ACK = -1;
    /** {@link #clearedPhase} when no phase was cleared. */
    public static final int NO_PHASE = -1;
}
