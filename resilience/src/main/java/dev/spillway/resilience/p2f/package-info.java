/**
 * Uncoordinated checkpoints with past-to-future logging (seed 001, spec Part A): the per-rank protocol state
 * ({@link dev.spillway.resilience.p2f.PastToFuture}), the recovery line ({@link dev.spillway.resilience.p2f.RecoveryLine})
 * and the phase watermark that releases replays in causal order ({@link dev.spillway.resilience.p2f.PhaseWatermark}).
 *
 * <p>Four different "epochs" exist in Spillway; here an epoch is always the checkpoint epoch of seed 001: the interval
 * between two checkpoints of one rank. A transfer sent in epoch {@code Es} and received in epoch {@code Er} is logged
 * by its sender iff {@code Es < Er}; every other acknowledged transfer is a dependency that can make its sender roll
 * back. Transfers are named by their channel, the ordered pair (source, target), and their ssn, the number of earlier
 * transfers on that channel.
 *
 * <p>The classes are pure logic with a single owner thread; they send nothing. The caller moves stamps, acks and
 * replays.
 */
package dev.spillway.resilience.p2f;
