package dev.spillway.resilience.snapshot;

/**
 * A message between the control agents of two ranks, sent in band on the FIFO channel from {@code source} to
 * {@code target}, behind every data leg sent before it.
 *
 * @param kind   what it is.
 * @param source the sending rank.
 * @param target the receiving rank.
 * @param wave   the wave it belongs to; 0 for the peek messages, which belong to none.
 */
public record ControlMessage(Kind kind, int source, int target, int wave)
{
    /** The message kinds; each protocol uses a few. */
    public enum Kind
    {
        /** The wave's marker (every protocol). */
        MARKER,
        /** The double barrier's second marker. */
        SECOND_MARKER,
        /** The partial double barrier's specific marker: answer it once every earlier response has been sent. */
        FLUSH,
        /** The answer to a flush. */
        FLUSH_ACK,
        /** The sender has checkpointed for the wave: operations held towards it may go (gap G1). */
        DONE,
        /** Peek-and-get: what is your mode? */
        PEEK,
        /** Peek-and-get: not checkpointing, the get may go. */
        PEEK_CLEAR,
        /** Peek-and-get: checkpointing, peek again. */
        PEEK_BUSY
    }
}
