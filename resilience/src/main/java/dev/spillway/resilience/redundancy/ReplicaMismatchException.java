package dev.spillway.resilience.redundancy;

import dev.spillway.rdma.TransportException;

/**
 * The copies of one logical message that the replicas of its sender delivered differ: a silent data corruption
 * detected at the receiver (seed 004's All-to-all mode, RedMPI's message comparison). The message names the logical
 * sender, the tag and each copy's checksum by process slot.
 */
public final class ReplicaMismatchException extends TransportException
{
    private static final long serialVersionUID = 1L;

    /** @param message what differed, naming the logical sender, the tag and the copies. */
    public ReplicaMismatchException(final String message)
    {
        super(message);
    }
}
