package dev.spillway.resilience.snapshot;

/** Where a rank is in a wave. */
public enum Mode
{
    /** Outside any wave: operations may start. */
    NORMAL,
    /** In the wave, its markers not sent yet: waiting for its pending gets to complete or to be flushed. */
    SWITCHING,
    /** Markers sent, waiting for the peers' markers before its checkpoint; no operation starts. */
    CHECKPOINTING
}
