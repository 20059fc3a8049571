package dev.spillway.resilience.p2f;

import dev.spillway.ranks.TransferSchedule;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NavigableSet;
import java.util.TreeSet;

/**
 * Seed 001's offline method (§V-E-1) on a program's {@link TransferSchedule}: which transfers an {@link EpochPlan}
 * logs, and, for the failure of every rank at every time of a grid, how many ranks the recovery line rolls back. A
 * time is a global submission index {@code T}: every event of an earlier submission has happened, none of a later
 * one, and every checkpoint before {@code T} has committed. The line is {@link RecoveryLine}'s, from dependencies
 * built as the protocol builds them.
 */
public final class ScheduleAnalysis
{
    /**
     * What the analysis found.
     *
     * @param ranks           how many ranks.
     * @param clusters        how many clusters.
     * @param transfers       how many transfers.
     * @param logged          how many were logged.
     * @param bytes           bytes moved.
     * @param loggedBytes     bytes logged.
     * @param meanRolledBack  the mean share of ranks rolled back over every failure of the grid.
     * @param rolledBackBound {@code (p+1)/(2p)}, the share when every cluster at or above the failed one rolls back.
     * @param failures        how many failures were averaged.
     */
    public record Figures(int ranks, int clusters, int transfers, long logged, long bytes, long loggedBytes,
        double meanRolledBack, double rolledBackBound, int failures)
    {
        /** @return the share of transfers logged, by count. */
        public double loggedShare()
        {
            return transfers == 0 ? 0 : (double) logged / transfers;
        }

        /** @return the share of bytes logged. */
        public double loggedByteShare()
        {
            return bytes == 0 ? 0 : (double) loggedBytes / bytes;
        }
    }

    private final TransferSchedule schedule;
    private final EpochPlan plan;
    private final int[] sendEpoch;
    private final int[] receiveEpoch;

    /**
     * @param schedule the program's transfers.
     * @param plan     when each rank checkpoints.
     */
    public ScheduleAnalysis(final TransferSchedule schedule, final EpochPlan plan)
    {
        this.schedule = schedule;
        this.plan = plan;
        final int transfers = schedule.transfers();
        this.sendEpoch = new int[transfers];
        this.receiveEpoch = new int[transfers];
        for (int i = 0; i < transfers; i++)
        {
            sendEpoch[i] = plan.epoch(schedule.source(i), schedule.globalIndex(i), schedule.sendSeq(i));
            receiveEpoch[i] = plan.epoch(schedule.target(i), schedule.globalIndex(i), schedule.receiveSeq(i));
        }
    }

    /** @return whether transfer {@code i} is logged: sent in an earlier epoch than it is received in. */
    public boolean logged(final int i)
    {
        return sendEpoch[i] < receiveEpoch[i];
    }

    /**
     * @param gridPoints how many failure times, evenly spaced over the run.
     * @return the logging volume and the mean share of ranks rolled back over every rank failing at every time.
     */
    public Figures figures(final int gridPoints)
    {
        final int ranks = schedule.ranks();
        long logged = 0;
        long bytes = 0;
        long loggedBytes = 0;
        for (int i = 0; i < schedule.transfers(); i++)
        {
            bytes += schedule.bytes(i);
            if (logged(i))
            {
                logged++;
                loggedBytes += schedule.bytes(i);
            }
        }
        final List<SentPerEpoch.Builder> builders = new ArrayList<>();
        for (int r = 0; r < ranks; r++)
        {
            builders.add(SentPerEpoch.builder());
        }
        double rolledBack = 0;
        int failures = 0;
        int next = 0;
        for (int g = 1; g <= gridPoints; g++)
        {
            final long time = schedule.submissions() * g / (gridPoints + 1);
            while (next < schedule.transfers() && schedule.globalIndex(next) < time)
            {
                if (!logged(next))
                {
                    builders.get(schedule.source(next)).add(schedule.target(next), sendEpoch[next], receiveEpoch[next]);
                }
                next++;
            }
            final List<SentPerEpoch> dependencies = new ArrayList<>();
            final List<NavigableSet<Integer>> committed = new ArrayList<>();
            final int[] newest = new int[ranks];
            for (int r = 0; r < ranks; r++)
            {
                dependencies.add(builders.get(r).build());
                newest[r] = plan.epoch(r, time, schedule.localTasksBefore(r, time));
                final NavigableSet<Integer> epochs = new TreeSet<>();
                for (int e = plan.initialEpoch(r); e <= newest[r]; e++)
                {
                    epochs.add(e);
                }
                committed.add(epochs);
            }
            for (int failed = 0; failed < ranks; failed++)
            {
                final int[] seeds = new int[ranks];
                Arrays.fill(seeds, RecoveryLine.NONE);
                seeds[failed] = newest[failed];
                final int[] line = RecoveryLine.compute(seeds, dependencies, committed);
                rolledBack += Arrays.stream(line).filter(e -> e != RecoveryLine.NONE).count() / (double) ranks;
                failures++;
            }
        }
        final int clusters = plan.cluster(ranks - 1) + 1;
        return new Figures(ranks, clusters, schedule.transfers(), logged, bytes, loggedBytes,
            failures == 0 ? 0 : rolledBack / failures, (clusters + 1) / (2.0 * clusters), failures);
    }
}
