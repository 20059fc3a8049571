package dev.spillway.resilience.redundancy;

import dev.spillway.resilience.store.GenerationDigest;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What a sphere's live replicas decide from their digests of one cut (design §D.2, seed 003 §4.2.1): equal digests
 * verify the generation; with two replicas a difference cannot say which is wrong, so the job rolls back to the
 * newest cut every sphere verified; with three or more a strict majority names the minority and the objects in which
 * it differs, and runs on without a rollback while the minority is mended from it or leaves
 * ({@link ReplicaDigests}). Comparison is exact: tasks are deterministic.
 */
public final class DigestVote
{
    private DigestVote()
    {
    }

    /** The outcome for one sphere at one cut. */
    public enum Kind
    {
        /** Every live replica holds the same generation: it becomes verified. */
        VERIFIED,
        /** One live replica: nothing to compare with; detection is suspended until the sphere has two again. */
        UNCHECKED,
        /** A strict majority agrees: it counts the cut and runs on; the minority replicas are mended or leave. */
        OUTVOTED,
        /** No majority: the job restarts from the newest cut every sphere verified. */
        ROLL_BACK
    }

    /**
     * @param kind     the outcome.
     * @param minority the replicas (process slots) outvoted: empty unless {@link Kind#OUTVOTED}.
     * @param objects  per outvoted replica, the tags whose blocks differ from the majority's; empty unless {@link
     *                 Kind#OUTVOTED}.
     * @param reason   for people: the cut, the replicas and their digests.
     */
    public record Verdict(Kind kind, SortedSet<Integer> minority, SortedMap<Integer, SortedSet<String>> objects,
        String reason)
    {
    }

    /**
     * @param rank    the logical rank the sphere runs.
     * @param digests per live replica (process slot), its digest of the same cut; at least one.
     */
    public static Verdict decide(final int rank, final Map<Integer, GenerationDigest> replicas)
    {
        final SortedMap<Integer, GenerationDigest> digests = new TreeMap<>(replicas);
        if (digests.isEmpty())
        {
            throw new IllegalArgumentException("rank " + rank + ": a vote needs at least one live replica");
        }
        final long cut = digests.get(digests.firstKey()).globalIndex();
        digests.forEach((slot, d) ->
        {
            if (d.globalIndex() != cut)
            {
                throw new IllegalArgumentException("rank " + rank + ": replica " + slot + " digested cut " +
                    d.globalIndex() + ", not " + cut);
            }
        });
        final String where = "rank " + rank + ", cut " + cut + ": ";
        if (digests.size() == 1)
        {
            return new Verdict(Kind.UNCHECKED, new TreeSet<>(), new TreeMap<>(), where + "one live replica (" +
                digests.firstKey() + "), nothing to compare with");
        }
        final Map<String, List<Integer>> groups = new LinkedHashMap<>();
        digests.forEach((slot, d) ->
            groups.computeIfAbsent(HexFormat.of().formatHex(d.sha256()), k -> new ArrayList<>()).add(slot));
        final String seen = where + groups.size() + " distinct digest(s) among replicas " + groups.values();
        if (groups.size() == 1)
        {
            return new Verdict(Kind.VERIFIED, new TreeSet<>(), new TreeMap<>(), where + digests.size() +
                " replicas agree");
        }
        final List<Integer> majority = groups.values().stream().filter(g -> 2 * g.size() > digests.size())
            .findFirst().orElse(null);
        if (majority == null)
        {
            return new Verdict(Kind.ROLL_BACK, new TreeSet<>(), new TreeMap<>(), seen + ": no majority, roll " +
                "back to the newest cut every sphere verified");
        }
        final SortedSet<Integer> others = new TreeSet<>(digests.keySet());
        others.removeAll(majority);
        final GenerationDigest agreed = digests.get(majority.get(0));
        final SortedMap<Integer, SortedSet<String>> objects = new TreeMap<>();
        for (final int slot : others)
        {
            objects.put(slot, agreed.differingObjects(digests.get(slot)));
        }
        return new Verdict(Kind.OUTVOTED, others, objects, seen + ": replica(s) " + others + " outvoted by " +
            majority + ", differing in " + objects);
    }
}
