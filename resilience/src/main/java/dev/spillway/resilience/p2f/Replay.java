package dev.spillway.resilience.p2f;

/**
 * A transfer a sender transmits again to a rank that restarted, with its original stamp.
 *
 * @param target  the restarted rank.
 * @param ssn     the transfer's position in its channel.
 * @param epoch   the epoch it was sent in.
 * @param phase   the phase it was sent in; it is released when the watermark reaches it.
 * @param payload the retained or logged content.
 * @param from    where the content was kept.
 * @param <P>     the payload type.
 */
public record Replay<P>(int target, long ssn, int epoch, int phase, P payload, From from)
{
    /** Where a replayed transfer was kept. */
    public enum From
    {
        /** The sender's log: a past-to-future transfer whose reception was rolled back. */
        LOG,
        /** Sent but never acknowledged: the receiver died or rolled back before its ack arrived. */
        NON_ACK
    }
}
