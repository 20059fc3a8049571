package dev.spillway.resilience.redundancy;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * The last comparison of a replicated run (design §D.2): once a replica computed its result, the replicas of its
 * sphere compare their result checksums. Those cover what the run wrote after its last compared cut, which no digest
 * saw and no receiver compared unless it travelled.
 */
public final class ReplicaResults
{
    private ReplicaResults()
    {
    }

    /**
     * What the sphere's comparison found.
     *
     * @param agrees     whether this replica's result is that of a strict majority of its sphere's live replicas (all
     *                   of them when they agree).
     * @param difference null when every live replica computed the same result; else each slot's checksum.
     * @param reports    whether this replica reports the sphere's result: the first, by slot, of those that took part
     *                   and agree with the majority. Slot 0, the first replica placed, may have been lost.
     */
    public record Outcome(boolean agrees, String difference, boolean reports)
    {
    }

    /**
     * Exchanges {@code checksum} with the sphere's live replicas (every one must call it once), on a tag of its own so
     * that a digest round still in flight cannot take part, and compares.
     *
     * @param checksum this replica's result checksum.
     */
    public static Outcome compare(final ReplicatedTransport transport, final String checksum)
    {
        final Map<Integer, String> all = new TreeMap<>();
        all.put(transport.slot(), checksum);
        transport.exchangeWithPartners(ReplicatedTransport.RESULT_TAG, checksum.getBytes(StandardCharsets.UTF_8))
            .forEach((slot, bytes) -> all.put(slot, new String(bytes, StandardCharsets.UTF_8)));
        final long same = all.values().stream().filter(checksum::equals).count();
        final boolean first = all.entrySet().stream().filter(e -> e.getValue().equals(checksum)).findFirst()
            .orElseThrow().getKey() == transport.slot();
        if (same == all.size())
        {
            return new Outcome(true, null, first);
        }
        final boolean majority = 2 * same > all.size();
        return new Outcome(majority, "the replicas of rank " + transport.rank() + " computed different results, " +
            "checksums by slot " + all + (majority ? ": this replica (slot " + transport.slot() + ") is in the " +
            "majority" : ": no majority includes this replica (slot " + transport.slot() + ")"), first && majority);
    }
}
