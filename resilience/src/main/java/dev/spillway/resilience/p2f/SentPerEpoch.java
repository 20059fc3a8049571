package dev.spillway.resilience.p2f;

import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
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

    /** @return a builder of a table from transfers known some other way (an offline schedule). */
    public static Builder builder()
    {
        return new Builder();
    }

    /** The ranks this rank depends on. */
    Set<Integer> targets()
    {
        return byTarget.keySet();
    }

    /** One dependency: {@code target} took a non-logged transfer sent in {@code sendEpoch} in {@code receiveEpoch}. */
    public interface Visitor
    {
        void dependency(int target, int sendEpoch, int receiveEpoch);
    }

    /** Visits every target and sender epoch with its latest receive epoch. */
    public void forEach(final Visitor visitor)
    {
        byTarget.forEach((target, epochs) -> epochs.forEach((es, er) -> visitor.dependency(target, es, er)));
    }

    /** Collects dependencies one non-logged transfer at a time. */
    public static final class Builder
    {
        private final Map<Integer, NavigableMap<Integer, Integer>> byTarget = new HashMap<>();

        private Builder()
        {
        }

        /**
         * @param target       the receiving rank.
         * @param sendEpoch    the epoch the transfer was sent in.
         * @param receiveEpoch the epoch it was received in, at most {@code sendEpoch} (else it is logged).
         * @return this builder.
         */
        public Builder add(final int target, final int sendEpoch, final int receiveEpoch)
        {
            byTarget.computeIfAbsent(target, t -> new TreeMap<>()).merge(sendEpoch, receiveEpoch, Math::max);
            return this;
        }

        /** @return a table of what was added so far; the builder goes on. */
        public SentPerEpoch build()
        {
            final Map<Integer, NavigableMap<Integer, Integer>> copy = new HashMap<>();
            byTarget.forEach((target, epochs) -> copy.put(target, new TreeMap<>(epochs)));
            return new SentPerEpoch(copy);
        }
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
