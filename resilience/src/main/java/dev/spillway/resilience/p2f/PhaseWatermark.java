package dev.spillway.resilience.p2f;

import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The recovery coordinator's release rule (seed 001 Props. 2–3 with erratum #9): a monotone watermark
 * {@code W = (lowest phase with a pending orphan) − 1}. A replay, or a send by a rank that did not roll back, of
 * phase {@code ρ} may go when {@code ρ ≤ W}; a send re-executed by a rank that rolled back when {@code ρ − 1 ≤ W}.
 * With no orphan pending, {@code W} is {@link #OPEN}.
 */
public final class PhaseWatermark
{
    /** The watermark when no orphan is pending: everything is released. */
    public static final long OPEN = Long.MAX_VALUE;

    private final NavigableMap<Integer, Integer> ranksWithOrphans = new TreeMap<>();

    /** @param phase a phase in which one more rank awaits orphans. */
    public void expect(final int phase)
    {
        ranksWithOrphans.merge(phase, 1, Integer::sum);
    }

    /** @param phase a phase in which one rank received its last pending orphan. */
    public void cleared(final int phase)
    {
        final Integer left = ranksWithOrphans.merge(phase, -1, Integer::sum);
        if (left != null && left < 0)
        {
            throw new IllegalStateException("phase " + phase + " cleared more often than it was expected");
        }
        if (left != null && left == 0)
        {
            ranksWithOrphans.remove(phase);
        }
    }

    /** @return the watermark, {@link #OPEN} when no orphan is pending. */
    public long watermark()
    {
        return ranksWithOrphans.isEmpty() ? OPEN : ranksWithOrphans.firstKey() - 1L;
    }

    /**
     * @param watermark   the current watermark.
     * @param phase       the phase a transfer was or will be sent in.
     * @param reexecuting true for a send re-executed by a rank that rolled back; false for a replay or a send by a
     *                    rank that did not.
     * @return whether it may go now.
     */
    public static boolean releases(final long watermark, final int phase, final boolean reexecuting)
    {
        return watermark == OPEN || (reexecuting ? phase - 1L : phase) <= watermark;
    }

    @Override
    public String toString()
    {
        final long w = watermark();
        return w == OPEN ? "watermark open" : "watermark " + w + " (ranks awaiting orphans by phase " + ranksWithOrphans + ")";
    }
}
