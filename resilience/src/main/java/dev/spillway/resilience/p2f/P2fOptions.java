package dev.spillway.resilience.p2f;

/**
 * How the past-to-future protocol runs.
 *
 * @param phaseGating release replays and sends during a recovery in phase order (seed 001 §III-A-3). Spillway's
 *                    kernels receive by name, so they are correct without it; a program with anonymous receives is
 *                    not.
 * @param logAll      log every acknowledged transfer, not only past-to-future ones: a test mode that measures the
 *                    cost of logging. Dependencies are recorded as usual, so recovery lines do not change.
 */
public record P2fOptions(boolean phaseGating, boolean logAll)
{
    /** Gating on, minimal logging. */
    public static final P2fOptions DEFAULTS = new P2fOptions(true, false);
}
