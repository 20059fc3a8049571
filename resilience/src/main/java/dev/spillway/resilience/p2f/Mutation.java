package dev.spillway.resilience.p2f;

/** A deliberate defect, for the simulator's negative controls only: each must make the suite fail. */
enum Mutation
{
    /** Nothing is logged: every ack is a dependency, as in plain uncoordinated checkpointing (domino-prone). */
    NO_LOGGING,
    /** A duplicate is delivered again instead of dropped, and orphans are transmitted in full. */
    NO_DUPLICATE_SUPPRESSION,
    /** A generation commits at its cut, before the sends ahead of it are acknowledged (erratum #5). */
    NO_ACK_DRAIN,
    /** Duplicates are not acknowledged and orphan re-sends are not tracked, as in the paper (erratum #7). */
    NO_DUPLICATE_REACK
}
