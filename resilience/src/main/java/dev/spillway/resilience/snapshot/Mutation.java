package dev.spillway.resilience.snapshot;

/** A deliberate defect, for the simulator's negative controls only: each must make a test fail. */
enum Mutation
{
    /**
     * No holding after a checkpoint: a rank writes into a peer still in the wave (an orphan), and a response served
     * after its server's checkpoint lands before its source's.
     */
    NO_HOLDING
}
