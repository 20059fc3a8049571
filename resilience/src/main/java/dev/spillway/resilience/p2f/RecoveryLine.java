package dev.spillway.resilience.p2f;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NavigableSet;

/**
 * The recovery line (seed 001 Fig. 4 l.6–17, spec §A.4.3 step 4): the epoch each rank must restart from so that no
 * non-logged transfer is seen as sent and not received. Seeded with the failed ranks' restored epochs, it propagates
 * along dependencies: if {@code k} sent {@code j} a non-logged transfer in epoch {@code Es} that {@code j} received
 * in an epoch at or after {@code line[j]}, then {@code line[k] ≤ Es}, rounded down to {@code k}'s newest committed
 * generation at or below {@code Es} (a generation still in flight cannot be restored). Past-to-future transfers are
 * logged and never propagate, so no rank goes below the smallest committed floor: there is no domino effect. A
 * worklist with a reverse index by target looks at a rank again only when its line drops.
 */
public final class RecoveryLine
{
    /** A rank the line does not reach: it keeps running. */
    public static final int NONE = Integer.MAX_VALUE;

    private RecoveryLine()
    {
    }

    /**
     * @param seeds        per rank, the epoch a failed rank restarted from, or {@link #NONE}.
     * @param dependencies per rank, its current dependencies (a failed rank's from its restored generation).
     * @param committed    per rank, the epochs its committed generations open.
     * @return per rank, the epoch of the generation to restart from, or {@link #NONE}.
     * @throws IllegalStateException if a rank has no committed generation at or below the epoch the line asks of it.
     */
    public static int[] compute(final int[] seeds, final List<SentPerEpoch> dependencies,
        final List<? extends NavigableSet<Integer>> committed)
    {
        final int ranks = seeds.length;
        final List<List<Integer>> sendersTo = new ArrayList<>();
        for (int r = 0; r < ranks; r++)
        {
            sendersTo.add(new ArrayList<>());
        }
        for (int sender = 0; sender < ranks; sender++)
        {
            for (final int target : dependencies.get(sender).targets())
            {
                sendersTo.get(target).add(sender);
            }
        }
        final int[] line = Arrays.copyOf(seeds, ranks);
        final ArrayDeque<Integer> work = new ArrayDeque<>();
        for (int r = 0; r < ranks; r++)
        {
            if (line[r] != NONE)
            {
                work.add(r);
            }
        }
        while (!work.isEmpty())
        {
            final int target = work.poll();
            for (final int sender : sendersTo.get(target))
            {
                final int sendEpoch = dependencies.get(sender).earliestSendUndoneBy(target, line[target]);
                if (sendEpoch == Integer.MAX_VALUE)
                {
                    continue;
                }
                final Integer floor = committed.get(sender).floor(sendEpoch);
                if (floor == null)
                {
                    throw new IllegalStateException("rank " + sender + " must restart at or before epoch " + sendEpoch
                        + " but keeps no generation that old (kept: " + committed.get(sender) + ")");
                }
                if (floor < line[sender])
                {
                    line[sender] = floor;
                    work.add(sender);
                }
            }
        }
        return line;
    }
}
