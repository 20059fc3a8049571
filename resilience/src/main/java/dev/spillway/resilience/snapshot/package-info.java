/**
 * Consistent checkpoint waves when ranks move data one-sidedly (seed 002, spec Part C): the
 * {@link dev.spillway.resilience.snapshot.SnapshotProtocol variants} and one rank's control agent
 * ({@link dev.spillway.resilience.snapshot.SnapshotAgent}).
 *
 * <p>A put is one data leg, source to target; a get is a read request, source to target, answered by the target's
 * NIC without the target process with a response in one or more segments. Channels are FIFO per directed pair and
 * markers travel in band. The default, the partial double barrier, adds a completion fence (a flush towards every
 * target with a pending get) before a rank enters the wave, and holds a rank's operations towards a peer after its
 * checkpoint until that peer has checkpointed too (gap G1 of the seed note).
 *
 * <p>Here a wave is a snapshot-wave number, never a checkpoint epoch, an incarnation or an access epoch. The classes
 * are pure logic with one owner thread; the caller moves messages and takes the local checkpoint.
 */
package dev.spillway.resilience.snapshot;
