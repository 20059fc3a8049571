package dev.spillway.cli;

import dev.spillway.resilience.buddy.BuddyPlacement;
import dev.spillway.resilience.interval.CheckpointModel;
import dev.spillway.resilience.model.FailureLevel;
import dev.spillway.resilience.model.FatalSets;
import dev.spillway.resilience.model.IndependentFailures;
import dev.spillway.resilience.model.ReliabilityModel;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code spillway plan} computes, as its {@code --json} writes it (seconds, and events per day).
 *
 * @param ranks                      N.
 * @param hosts                      H.
 * @param placement                  {@code mutual} or {@code ring}.
 * @param buddies                    every rank with the rank that keeps its checkpoint's copy.
 * @param fatalRankPairs             ranks that lose a checkpoint when both die: N/2 mutual, N ring (N ≥ 3).
 * @param fatalHostPairs             distinct pairs of hosts that do so together.
 * @param hostsFatalAlone            hosts that hold a rank and its buddy.
 * @param warnings                   one line per such host.
 * @param hostMtbfS                  the mean time between failures of one host.
 * @param jobMtbfS                   the job's: {@code hostMtbfS / hosts}; the Daly interval is for it.
 * @param checkpointCostS            δ.
 * @param dalyIntervalS              seed 000's Daly interval for δ and the job's MTBF.
 * @param concurrencyWindowS         the interval plus δ: failures this close count as concurrent.
 * @param hostFailuresPerDay         {@code 86400·H / hostMtbfS}.
 * @param catastrophicFailuresPerDay eq. 7 over the host level with this placement's fatal sets.
 * @param replication                replicas at the chosen degree and seed 004's model.
 * @param acr                        ACR's model for two replicas.
 */
record PlanFigures(int ranks, int hosts, String placement, List<Buddy> buddies, int fatalRankPairs,
    long fatalHostPairs, long hostsFatalAlone, List<String> warnings, double hostMtbfS, double jobMtbfS,
    double checkpointCostS, double dalyIntervalS, double concurrencyWindowS, double hostFailuresPerDay,
    double catastrophicFailuresPerDay, ReplicationFigures replication, AcrFigures acr)
{
    /**
     * A rank and where its checkpoint's copy is.
     *
     * @param rank      the rank.
     * @param host      its host.
     * @param buddy     the rank that keeps the copy.
     * @param buddyHost that rank's host.
     */
    record Buddy(int rank, String host, int buddy, String buddyHost)
    {
    }

    /**
     * @return {@code ranks} ranks dealt to {@code hosts} hosts named {@code host0…} in blocks, as Slurm's default
     *         block distribution does: the first {@code ranks mod hosts} hosts get one rank more.
     */
    static List<String> blocks(final int ranks, final int hosts)
    {
        final List<String> map = new ArrayList<>(ranks);
        for (int r = 0; r < ranks; r++)
        {
            map.add("host" + (int)((long)r * hosts / ranks));
        }
        return map;
    }

    /** @return the figures for {@code placement} on {@code hosts} hosts of the given MTBF and checkpoint cost. */
    static PlanFigures of(final BuddyPlacement placement, final int hosts, final double hostMtbfS,
        final double checkpointCostS, final ReplicationFigures replication, final AcrFigures acr)
    {
        final double jobMtbf = hostMtbfS / hosts;
        final double daly = CheckpointModel.dalyHigherOrder(checkpointCostS, jobMtbf);
        final double window = daly + checkpointCostS;
        final IndependentFailures failures = new IndependentFailures(hosts, hostMtbfS, window);
        final FatalSets fatal = placement.hostFatalSets();
        final double catastrophic = ReliabilityModel.perDay(List.of(FailureLevel.placed("hosts", hosts, fatal,
            failures)));
        final List<Buddy> buddies = new ArrayList<>(placement.ranks());
        for (int r = 0; r < placement.ranks(); r++)
        {
            final int b = placement.buddyOf(r);
            buddies.add(new Buddy(r, placement.hostOf(r), b, placement.hostOf(b)));
        }
        return new PlanFigures(placement.ranks(), hosts, placement.kind().name().toLowerCase(Locale.ROOT),
            buddies, placement.pairs().size(), fatal.pairs(), fatal.singles(), placement.warnings(), hostMtbfS,
            jobMtbf, checkpointCostS, daly, window, failures.perDay(), catastrophic, replication, acr);
    }
}
