/**
 * Partial redundancy (seed 004, design part D.2): how many replicas each logical rank gets at a degree r, in exact
 * arithmetic, which process slots on which hosts run them, and {@link ReplicatedTransport}, which runs a program's
 * logical ranks over their replicas (All-to-all transfers compared copy by copy, takeover on a replica's loss).
 * Generation digests and their vote compare replicas' checkpoints.
 */
package dev.spillway.resilience.redundancy;
