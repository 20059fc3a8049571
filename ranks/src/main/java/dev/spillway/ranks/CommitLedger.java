package dev.spillway.ranks;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * Rank 0's account of which rank committed which global cut, and in which incarnation, until every rank has. A
 * recovery line that sends a rank back to a cut makes its incarnation's commits above that cut stale: they are
 * forgotten, and that incarnation's later notices above it are ignored, while the cut itself and those below stay
 * committed (the rank restores one of them), and the incarnation that replaces it commits the rest again. One
 * watermark per rank: sending a newer incarnation back replaces it, and an older incarnation's late notices are then
 * left to the transport, which drops what a lost incarnation sends. Single threaded: rank 0's cut executor.
 */
final class CommitLedger
{
    private static final int NONE = -1;

    /** Per index not yet global: the incarnation of each rank that committed it, or {@link #NONE}. */
    private final TreeMap<Long, int[]> commits = new TreeMap<>();
    /** Per rank: the newest incarnation whose commits above {@link #staleAbove} are stale, or {@link #NONE}. */
    private final int[] staleUpTo;
    private final long[] staleAbove;

    CommitLedger(final int ranks)
    {
        staleUpTo = new int[ranks];
        Arrays.fill(staleUpTo, NONE);
        staleAbove = new long[ranks];
    }

    /** @return false when the notice is stale and ignored. */
    boolean committed(final int rank, final int incarnation, final long index)
    {
        if (incarnation <= staleUpTo[rank] && index > staleAbove[rank])
        {
            return false;
        }
        commits.computeIfAbsent(index, i -> newRow())[rank] = incarnation;
        return true;
    }

    /**
     * A recovery line sends {@code rank} back to the cut at {@code index} ({@code Cut.LOCAL}: its start): the commits
     * of its incarnations up to {@code incarnation} above that cut are stale.
     */
    void sentBack(final int rank, final int incarnation, final long index)
    {
        if (incarnation > staleUpTo[rank])
        {
            staleUpTo[rank] = incarnation;
            staleAbove[rank] = index;
        }
        else
        {
            staleAbove[rank] = Math.min(staleAbove[rank], index);
        }
        for (final int[] row : commits.tailMap(index, false).values())
        {
            if (row[rank] != NONE && row[rank] <= incarnation)
            {
                row[rank] = NONE;
            }
        }
    }

    /**
     * Takes the newest index that every rank committed, forgetting it and every older one.
     *
     * @return that index, or {@link Long#MIN_VALUE} when none is complete.
     */
    long takeNewestComplete()
    {
        for (final Map.Entry<Long, int[]> entry : commits.descendingMap().entrySet())
        {
            if (Arrays.stream(entry.getValue()).noneMatch(incarnation -> incarnation == NONE))
            {
                final long index = entry.getKey();
                commits.headMap(index, true).clear();
                return index;
            }
        }
        return Long.MIN_VALUE;
    }

    /** @return which ranks committed the oldest cut not yet global, and which did not, for wait reports. */
    String describe()
    {
        final Map.Entry<Long, int[]> oldest = commits.firstEntry();
        if (oldest == null)
        {
            return "no commit notice above the global cut is pending";
        }
        final StringBuilder missing = new StringBuilder();
        final int[] row = oldest.getValue();
        for (int r = 0; r < row.length; r++)
        {
            if (row[r] == NONE)
            {
                missing.append(missing.length() == 0 ? "" : ", ").append(r);
            }
        }
        return "the cut at " + oldest.getKey() + " waits for the commit notices of rank(s) " + missing;
    }

    private int[] newRow()
    {
        final int[] row = new int[staleUpTo.length];
        Arrays.fill(row, NONE);
        return row;
    }
}
