/**
 * Reliability models, pure arithmetic with no I/O: seed 000's catastrophic failures per day (Besta and Hoefler,
 * §5.2, eqs. 7-9), seed 004's partial redundancy combined with checkpoints ({@link
 * dev.spillway.resilience.model.RedundancyModel}, eqs. 1-15) and ACR's replication-enhanced checkpoints (seed 003
 * §4.5, {@link dev.spillway.resilience.model.AcrModel}).
 */
package dev.spillway.resilience.model;
