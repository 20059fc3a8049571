package dev.spillway.resilience.p2f;

import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/** One rank's side of a channel it sends on: what is awaiting an ack, what is logged, and the dependencies. */
final class OutChannel<P>
{
    /** A transfer sent and not yet acknowledged. */
    record Sent<P>(long ssn, int epoch, int phase, P payload)
    {
    }

    /** An acknowledged past-to-future transfer, kept for a receiver that rolls back. */
    record Logged<P>(long ssn, int epoch, int phase, int receiveEpoch, P payload)
    {
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static <P> OutChannel<P>[] array(final int length)
    {
        return new OutChannel[length];
    }

    long nextSsn;
    /** Recovery only: sends up to this ssn are orphans the receiver holds; -1 when none. */
    long suppressUpTo = -1;
    final NavigableMap<Long, Sent<P>> nonAck = new TreeMap<>();
    final NavigableMap<Long, Logged<P>> log = new TreeMap<>();
    /** SentPerEpoch: sender epoch to the latest receive epoch of a non-logged transfer sent in it. */
    final NavigableMap<Integer, Integer> dependencies = new TreeMap<>();

    /** The state a generation keeps: sends before {@code ssnLimit}, logs still needed at {@code gcEpoch}. */
    OutChannel<P> keptBefore(final long ssnLimit, final int epochLimit, final int gcEpoch)
    {
        final OutChannel<P> kept = new OutChannel<>();
        kept.nextSsn = ssnLimit;
        for (final Logged<P> entry : log.headMap(ssnLimit, false).values())
        {
            if (entry.receiveEpoch() >= gcEpoch)
            {
                kept.log.put(entry.ssn(), entry);
            }
        }
        kept.dependencies.putAll(dependencies.headMap(epochLimit, false));
        return kept;
    }

    OutChannel<P> copy()
    {
        final OutChannel<P> copy = keptBefore(nextSsn, Integer.MAX_VALUE, Integer.MIN_VALUE);
        copy.nonAck.putAll(nonAck);
        return copy;
    }

    void collect(final int gcEpoch)
    {
        log.values().removeIf(entry -> entry.receiveEpoch() < gcEpoch);
        dependencies.headMap(gcEpoch, false).clear();
    }

    long firstUnacked()
    {
        final Map.Entry<Long, Sent<P>> first = nonAck.firstEntry();
        return first == null ? Long.MAX_VALUE : first.getKey();
    }
}
