package dev.spillway.resilience.p2f;

import dev.spillway.ranks.RankProtocol;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * Rank 0's part of a recovery session (spec §A.4.3 step 4): from the reports of the ranks that run on and the cut
 * each lost rank restores, the {@link RecoveryLine}, as the global index of the aligned cut each rank must restart
 * from. A lost rank contributes no dependencies: under aligned cuts, a transfer it sent before the cut it restores is
 * received before the same cut, so it never sends another rank further back.
 */
public final class RecoveryCoordinator
{
    private final EpochPlan plan;
    private final int ranks;

    /**
     * @param plan  the job's aligned epoch plan.
     * @param ranks how many ranks.
     */
    public RecoveryCoordinator(final EpochPlan plan, final int ranks)
    {
        if (!plan.aligned())
        {
            throw new IllegalArgumentException("the recovery coordinator maps epochs to aligned cuts, not " + plan);
        }
        this.plan = plan;
        this.ranks = ranks;
    }

    /**
     * @param restoring per lost rank, the global index of the cut it restores (-1: the run's start).
     * @param reports   a report from every other rank.
     * @return per rank, the global index of the cut to restart from (-1: the start), or
     *         {@link RankProtocol#KEEPS_RUNNING}.
     * @throws IllegalArgumentException if a rank is neither lost nor reported, or both.
     */
    public long[] line(final Map<Integer, Long> restoring, final Map<Integer, RecoveryReport> reports)
    {
        final int[] seeds = new int[ranks];
        Arrays.fill(seeds, RecoveryLine.NONE);
        final List<SentPerEpoch> depends = new ArrayList<>();
        final List<NavigableSet<Integer>> committed = new ArrayList<>();
        for (int r = 0; r < ranks; r++)
        {
            final Long cut = restoring.get(r);
            final RecoveryReport report = reports.get(r);
            if ((cut == null) == (report == null))
            {
                throw new IllegalArgumentException("rank " + r + " must be either lost or reported: lost " +
                    restoring.keySet() + ", reported " + reports.keySet());
            }
            if (cut != null)
            {
                seeds[r] = plan.epochAfterCut(r, cut);
                depends.add(SentPerEpoch.none());
                committed.add(new TreeSet<>(List.of(seeds[r])));
            }
            else
            {
                depends.add(report.depends());
                committed.add(report.committed());
            }
        }
        final int[] epochs = RecoveryLine.compute(seeds, depends, committed);
        return cuts(epochs);
    }

    private long[] cuts(final int[] epochs)
    {
        final long[] line = new long[ranks];
        for (int r = 0; r < ranks; r++)
        {
            line[r] = epochs[r] == RecoveryLine.NONE ? RankProtocol.KEEPS_RUNNING : plan.cutOpening(r, epochs[r]);
        }
        return line;
    }
}
