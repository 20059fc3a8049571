/**
 * The checkpoint service provider interface: what the runtime needs from a checkpoint store and an interval policy.
 * The {@code resilience} module implements it ({@code dev.spillway.resilience.Checkpoints} wires it into a
 * {@link dev.spillway.SpillwayConfig}); users rarely implement it themselves.
 *
 * <p>A checkpoint is taken at a <em>cut</em>: a point in submission order. It holds the version of every data object
 * produced by the tasks before the cut, the cut itself (the frontier: every task before it is complete), and the
 * runtime's incarnation. Tasks are identified by their submission sequence, data by their stable tags.
 */
package dev.spillway.checkpoint;
