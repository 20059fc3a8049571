package dev.spillway.resilience.buddy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** The ranks of each host not yet placed, lowest first; hosts kept fullest first, then by their first rank. */
final class HostQueues
{
    private final Map<String, Integer> index = new HashMap<>();
    private final List<String> names = new ArrayList<>();
    private final List<ArrayDeque<Integer>> unplaced = new ArrayList<>();
    /** Non-empty hosts by index; a host leaves it while its size changes, since the order reads the size. */
    private final TreeSet<Integer> fullestFirst = new TreeSet<>(
        Comparator.comparingInt((Integer h) -> -unplaced.get(h).size()).thenComparingInt(h -> h));
    private int remaining;

    HostQueues(final List<String> hostOfRank)
    {
        for (int r = 0; r < hostOfRank.size(); r++)
        {
            final int h = index.computeIfAbsent(hostOfRank.get(r), name ->
            {
                names.add(name);
                unplaced.add(new ArrayDeque<>());
                return names.size() - 1;
            });
            unplaced.get(h).add(r);
        }
        for (int h = 0; h < names.size(); h++)
        {
            fullestFirst.add(h);
        }
        remaining = hostOfRank.size();
    }

    int remaining()
    {
        return remaining;
    }

    /**
     * @param except    a host not to answer, or null.
     * @param preferred the host to answer on a tie for the most ranks, or null for the one with the lowest rank.
     * @return the host with the most unplaced ranks other than {@code except}, or null if there is none.
     */
    String fullestExcept(final String except, final String preferred)
    {
        Integer best = null;
        for (final Integer h : fullestFirst) // at most two steps
        {
            if (!names.get(h).equals(except))
            {
                best = h;
                break;
            }
        }
        if (best == null)
        {
            return null;
        }
        final Integer tie = preferred == null || preferred.equals(except) ? null : index.get(preferred);
        return tie != null && unplaced.get(tie).size() == unplaced.get(best).size() ? preferred : names.get(best);
    }

    /** @return the lowest unplaced rank of {@code host}, now placed. */
    int take(final String host)
    {
        final int h = index.get(host);
        fullestFirst.remove(h);
        final int rank = unplaced.get(h).poll();
        if (!unplaced.get(h).isEmpty())
        {
            fullestFirst.add(h);
        }
        remaining--;
        return rank;
    }
}
