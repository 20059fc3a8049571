package dev.spillway.resilience.p2f;

/**
 * What a send carries besides its payload.
 *
 * @param target     the receiving rank.
 * @param ssn        the transfer's position in its channel, from 0.
 * @param epoch      the sender's checkpoint epoch {@code Es}.
 * @param phase      the sender's phase.
 * @param suppressed true when the receiver already holds this transfer (an orphan of a rollback): the caller sends
 *                   the stamp without the payload and the receiver only acknowledges it again.
 */
public record Stamp(int target, long ssn, int epoch, int phase, boolean suppressed)
{
}
