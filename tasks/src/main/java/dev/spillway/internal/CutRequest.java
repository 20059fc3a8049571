package dev.spillway.internal;

/**
 * A cut asked for at a point of the submission order.
 *
 * @param frontier    the sequence number of the next task submitted after the request.
 * @param globalIndex the cut's {@link dev.spillway.checkpoint.Cut#globalIndex}.
 * @param programHash the program hash of the tasks before {@code frontier}.
 */
record CutRequest(long frontier, long globalIndex, long programHash)
{
}
