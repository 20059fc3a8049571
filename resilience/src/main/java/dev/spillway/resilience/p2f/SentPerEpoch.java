package dev.spillway.resilience.p2f;

import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * One rank's dependencies (seed 001's SPE table): per target and sender epoch {@code Es}, the latest epoch in which
 * the target received a non-logged transfer sent in {@code Es}. If the target rolls back to that epoch or earlier,
 * the sender must roll back to {@code Es} to send it again.
 */
public final class SentPerEpoch
{
    private final Map<Integer, NavigableMap<Integer, Integer>> byTarget;

    SentPerEpoch(final Map<Integer, NavigableMap<Integer, Integer>> byTarget)
    {
        this.byTarget = byTarget;
    }

    /** An empty table. */
    public static SentPerEpoch none()
    {
        return new SentPerEpoch(Map.of());
    }

    /**
     * @param target       the rank that rolls back.
     * @param receiveEpoch the epoch it rolls back to.
     * @return the earliest sender epoch in which a non-logged transfer was sent that {@code target} received in
     *         {@code receiveEpoch} or later, or {@link Integer#MAX_VALUE} if none.
     */
    public int earliestSendUndoneBy(final int target, final int receiveEpoch)
    {
        final NavigableMap<Integer, Integer> epochs = byTarget.getOrDefault(target, new TreeMap<>());
        for (final Map.Entry<Integer, Integer> entry : epochs.entrySet())
        {
            if (entry.getValue() >= receiveEpoch)
            {
                return entry.getKey();
            }
        }
        return Integer.MAX_VALUE;
    }

    @Override
    public String toString()
    {
        return byTarget.toString();
    }
}
