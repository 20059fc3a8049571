package dev.spillway.resilience.buddy;

import dev.spillway.resilience.hosts.HostQueues;
import dev.spillway.resilience.model.FatalSets;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which rank keeps a copy of each rank's checkpoint (its buddy), given each rank's host. Ranks are paired on
 * different hosts when the host map allows it, and as few pairs as possible share a host otherwise (seed 000's
 * topology awareness at the host level, eq. 6 with m = 1):
 * <ul>
 *   <li>{@link Kind#MUTUAL}: ranks in pairs that hold each other's copy. Each pair joins a rank of the host with the
 *       most unpaired ranks to one of the next such host, the lowest ranks first; on one host (or with ranks dealt
 *       to hosts in turn) that is {@code r ↔ r xor 1}. Needs an even number of ranks.</li>
 *   <li>{@link Kind#RING}: seed 003's cyclic scheme, each rank's copy at the next rank of a cycle. The cycle takes
 *       next a rank of the host with the most ranks left other than the last one's (the first rank's host on ties,
 *       so that it is not left for last, next to the first); on one host it is {@code r → r + 1 mod N}.</li>
 * </ul>
 * Losing a rank and its buddy loses the rank's checkpoint: those are the fatal pairs, N/2 for mutual pairs and N for
 * a ring (N ≥ 3), so a ring is twice as likely to lose data to two failures.
 */
public final class BuddyPlacement
{
    /** How ranks are buddied. */
    public enum Kind
    {
        /** Pairs that keep each other's copy. */
        MUTUAL,
        /** Each rank's copy at the next rank of a cycle. */
        RING
    }

    /**
     * A rank and its buddy, losing both of which loses a checkpoint.
     *
     * @param rank  the lower rank.
     * @param buddy the higher rank.
     */
    public record Pair(int rank, int buddy)
    {
    }

    private final Kind kind;
    private final List<String> hosts;
    private final int[] buddyOf;

    private BuddyPlacement(final Kind kind, final List<String> hosts, final int[] buddyOf)
    {
        this.kind = kind;
        this.hosts = hosts;
        this.buddyOf = buddyOf;
    }

    /** @return mutual pairs for an even number of ranks, else a ring. */
    public static BuddyPlacement forHosts(final List<String> hostOfRank)
    {
        return of(hostOfRank.size() % 2 == 0 ? Kind.MUTUAL : Kind.RING, hostOfRank);
    }

    /**
     * @param hostOfRank each rank's host name, by rank; at least two ranks.
     * @throws IllegalArgumentException with fewer than two ranks, or mutual pairs of an odd number of ranks.
     */
    public static BuddyPlacement of(final Kind kind, final List<String> hostOfRank)
    {
        final int n = hostOfRank.size();
        if (n < 2)
        {
            throw new IllegalArgumentException("buddies need at least 2 ranks, got " + n);
        }
        if (kind == Kind.MUTUAL && n % 2 != 0)
        {
            throw new IllegalArgumentException("mutual pairs need an even number of ranks, got " + n +
                " (a ring takes any number)");
        }
        final HostQueues queues = new HostQueues(hostOfRank);
        final int[] buddyOf = new int[n];
        if (kind == Kind.MUTUAL)
        {
            while (queues.remaining() > 0)
            {
                final int a = queues.take(queues.fullestExcept(null, null));
                final String other = queues.fullestExcept(hostOfRank.get(a), null);
                final int b = queues.take(other != null ? other : hostOfRank.get(a));
                buddyOf[a] = b;
                buddyOf[b] = a;
            }
        }
        else
        {
            final int first = queues.take(queues.fullestExcept(null, null));
            int previous = first;
            while (queues.remaining() > 0)
            {
                final String other = queues.fullestExcept(hostOfRank.get(previous), hostOfRank.get(first));
                final int next = queues.take(other != null ? other : hostOfRank.get(previous));
                buddyOf[previous] = next;
                previous = next;
            }
            buddyOf[previous] = first;
        }
        return new BuddyPlacement(kind, List.copyOf(hostOfRank), buddyOf);
    }

    /** @return how the ranks are buddied. */
    public Kind kind()
    {
        return kind;
    }

    /** @return the number of ranks. */
    public int ranks()
    {
        return buddyOf.length;
    }

    /** @return the rank that keeps a copy of {@code rank}'s checkpoint. */
    public int buddyOf(final int rank)
    {
        return buddyOf[rank];
    }

    /** @return {@code rank}'s host. */
    public String hostOf(final int rank)
    {
        return hosts.get(rank);
    }

    /** @return the fatal pairs: every rank with its buddy, once, by lower rank. */
    public List<Pair> pairs()
    {
        final List<Pair> pairs = new ArrayList<>();
        for (int r = 0; r < buddyOf.length; r++)
        {
            final int b = buddyOf[r];
            if (r < b || buddyOf[b] != r)
            {
                pairs.add(new Pair(Math.min(r, b), Math.max(r, b)));
            }
        }
        pairs.sort(Comparator.comparingInt(Pair::rank).thenComparingInt(Pair::buddy));
        return pairs;
    }

    /** @return hosts that hold a rank and its buddy, in the order of their lowest such rank. */
    private Set<String> sharedHosts()
    {
        final Set<String> shared = new LinkedHashSet<>();
        for (final Pair p : pairs())
        {
            if (hosts.get(p.rank()).equals(hosts.get(p.buddy())))
            {
                shared.add(hosts.get(p.rank()));
            }
        }
        return shared;
    }

    /** @return one line per host that holds a rank and its buddy, saying what that costs. */
    public List<String> warnings()
    {
        final List<String> lines = new ArrayList<>();
        for (final String host : sharedHosts())
        {
            lines.add("buddies share host " + host + ": this protects against a process's death, not the host's");
        }
        return lines;
    }

    /**
     * @return the fatal sets at the host level: hosts that hold a rank and its buddy, and the distinct pairs of other
     *         hosts that hold one each.
     */
    public FatalSets hostFatalSets()
    {
        final Set<String> alone = sharedHosts();
        final Set<List<String>> together = new LinkedHashSet<>();
        for (final Pair p : pairs())
        {
            final String a = hosts.get(p.rank());
            final String b = hosts.get(p.buddy());
            if (!alone.contains(a) && !alone.contains(b))
            {
                together.add(a.compareTo(b) < 0 ? List.of(a, b) : List.of(b, a));
            }
        }
        return new FatalSets(alone.size(), together.size());
    }
}
