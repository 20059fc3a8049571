package dev.spillway.resilience.hosts;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The positions (ranks, process slots) of each host not yet placed, lowest first; hosts kept fullest first, then by
 * their first position.
 */
public final class HostQueues
{
    private final Map<String, Integer> index = new HashMap<>();
    private final List<String> names = new ArrayList<>();
    private final List<ArrayDeque<Integer>> unplaced = new ArrayList<>();
    /** Non-empty hosts by index; a host leaves it while its size changes, since the order reads the size. */
    private final TreeSet<Integer> fullestFirst = new TreeSet<>(
        Comparator.comparingInt((Integer h) -> -unplaced.get(h).size()).thenComparingInt(h -> h));
    private int remaining;

    /** @param hostOfPosition each position's host name, by position. */
    public HostQueues(final List<String> hostOfPosition)
    {
        for (int r = 0; r < hostOfPosition.size(); r++)
        {
            final int h = index.computeIfAbsent(hostOfPosition.get(r), name ->
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
        remaining = hostOfPosition.size();
    }

    /** @return the positions not yet placed. */
    public int remaining()
    {
        return remaining;
    }

    /**
     * @param except    a host not to answer, or null.
     * @param preferred the host to answer on a tie for the most positions, or null for the one with the lowest
     *                  position.
     * @return the host with the most unplaced positions other than {@code except}, or null if there is none.
     */
    public String fullestExcept(final String except, final String preferred)
    {
        final String best = fullestNotIn(except == null ? Set.of() : Set.of(except));
        if (best == null)
        {
            return null;
        }
        final Integer tie = preferred == null || preferred.equals(except) ? null : index.get(preferred);
        return tie != null && unplaced.get(tie).size() == unplaced.get(index.get(best)).size() ? preferred : best;
    }

    /**
     * @param used hosts not to answer.
     * @return the host with the most unplaced positions outside {@code used} (the lowest position on ties), or null
     *         if there is none.
     */
    public String fullestNotIn(final Set<String> used)
    {
        for (final Integer h : fullestFirst) // at most |used| + 1 steps
        {
            if (!used.contains(names.get(h)))
            {
                return names.get(h);
            }
        }
        return null;
    }

    /** @return the lowest unplaced position of {@code host}, now placed. */
    public int take(final String host)
    {
        final int h = index.get(host);
        fullestFirst.remove(h);
        final int position = unplaced.get(h).poll();
        if (!unplaced.get(h).isEmpty())
        {
            fullestFirst.add(h);
        }
        remaining--;
        return position;
    }
}
