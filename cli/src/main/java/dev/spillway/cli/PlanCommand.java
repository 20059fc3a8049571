package dev.spillway.cli;

import dev.spillway.resilience.buddy.BuddyPlacement;
import dev.spillway.resilience.model.RedundancyModel;
import dev.spillway.resilience.model.RedundancyModel.Eq13;
import dev.spillway.resilience.redundancy.RedundancyDegree;
import dev.spillway.resilience.redundancy.RedundancyPlan;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code spillway plan}: where each rank's checkpoint copy would go (its buddy) and what that protects against,
 * without running anything: the buddy placement, the catastrophic failures per day of seed 000's model over the
 * hosts with this placement's fatal sets, and Daly's interval (issue 15); replicas at degree r with seed 004's model
 * of redundancy with checkpoints, and ACR's model of two replicas that compare checkpoints (issue 16).
 */
@Command(name = "plan", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Plan buddy checkpoints for N ranks on H hosts: which rank keeps a copy of which rank's " +
        "checkpoint, how often hosts failing together would lose a checkpoint with its copy, and the checkpoint " +
        "interval. Ranks are dealt to the hosts in blocks (host0 gets the first ranks, as Slurm's default block " +
        "distribution); buddies are put on different hosts when the hosts allow it, and the plan says when they " +
        "do not.",
        "Catastrophic failures per day: seed 000's eqs. 7-9 over the hosts, counting this placement's fatal sets " +
            "(a host holding a rank and its buddy; two hosts holding one each), with hosts failing independently " +
            "at the MTBF and failures within the interval plus one checkpoint of each other counted as concurrent. " +
            "The Daly interval is seed 000's (§6.1), for the job's MTBF: the host MTBF / H.",
        "Replication (planned only: the runtime that launches replicas is not built yet): at degree r each rank " +
            "runs as a sphere of replicas, ⌈r⌉ for evenly spread ranks and ⌊r⌋ for the others (seed 004 eqs. 5-8; " +
            "1.5 replicates the even ranks); process slots are dealt to the hosts in blocks and a sphere's " +
            "replicas put on different hosts when the slots allow it. Seed 004's model (eqs. 1-15) gives the " +
            "expected run time at r and at 1x to 3x, and ACR's (seed 003 §4.5) two replicas that compare " +
            "checkpoints to catch silent data corruption. Both models assume, as the papers do, one process per " +
            "node: every process fails independently at the host MTBF."},
    footer = {"", "Examples:",
        "  spillway plan --ranks 16 --hosts 4 --mtbf 2592000",
        "  spillway plan --ranks 16 --hosts 8 --mtbf 2592000 --redundancy 1.5",
        "  spillway plan --ranks 100000 --mtbf 157680000 --work 460800 --checkpoint-cost 600",
        "  spillway plan --ranks 5 --mtbf 86400 --checkpoint-cost 30 --json plan.json",
        "  spillway plan --ranks 8 --hosts 8 --mtbf 2592000 --placement ring"})
final class PlanCommand implements Callable<Integer>
{
    /** Up to this many ranks, every buddy is printed; beyond, the first ones (--json has all). */
    static final int PRINTED_BUDDIES = 64;
    private static final double DAYS_PER_YEAR = 365.25;

    @Spec
    private CommandSpec spec;

    @Option(names = "--ranks", paramLabel = "N", required = true, description = "Ranks, at least 2.")
    private int ranks;

    @Option(names = "--hosts", paramLabel = "H", defaultValue = "1",
        description = "Hosts, 1 to N (default: ${DEFAULT-VALUE}, as `launch` starts them).")
    private int hosts;

    @Option(names = "--mtbf", paramLabel = "SECONDS", required = true,
        description = "Mean time between failures of one host, in seconds.")
    private double mtbf;

    @Option(names = "--placement", paramLabel = "mutual|ring",
        description = "Mutual pairs (a rank and its buddy keep each other's copy; N even) or a ring (each " +
            "rank's copy at the next rank; twice the fatal pairs). Default: mutual for an even N, else ring.")
    private BuddyPlacement.Kind placement;

    @Option(names = "--checkpoint-cost", paramLabel = "SECONDS", defaultValue = "10",
        description = "Time to take one checkpoint, δ in Daly's interval (default: ${DEFAULT-VALUE}, a few GiB " +
            "per rank at NVMe or network speed).")
    private double checkpointCost;

    @Option(names = "--redundancy", paramLabel = "R", defaultValue = "1",
        description = "Replicas per rank, a decimal r ≥ 1 (seed 004): 2 replicates every rank, 1.5 every other " +
            "one (default: ${DEFAULT-VALUE}).")
    private String redundancy;

    @Option(names = "--work", paramLabel = "SECONDS", defaultValue = "86400",
        description = "Failure-free run time without replicas, t in seed 004's model and W in ACR's (default: " +
            "${DEFAULT-VALUE}, a day).")
    private double work;

    @Option(names = "--comm-fraction", paramLabel = "ALPHA", defaultValue = "0.2",
        description = "Fraction of the run spent communicating, which r replicas slow r times (seed 004 eq. 1; " +
            "default: ${DEFAULT-VALUE}, the paper's CG).")
    private double commFraction;

    @Option(names = "--restart-cost", paramLabel = "SECONDS",
        description = "Time to restart from a checkpoint, R (default: the checkpoint cost, as both papers assume).")
    private Double restartCost;

    @Option(names = "--sdc-fit", paramLabel = "FIT", defaultValue = "100",
        description = "Silent data corruptions per 10⁹ hours per process, for ACR (default: ${DEFAULT-VALUE}, the " +
            "thesis's Fig. 4.7).")
    private double sdcFit;

    @Mixin
    private JsonOutput json;

    @Override
    public Integer call() throws IOException
    {
        final BuddyPlacement buddies = placement();
        final RedundancyPlan plan = redundancyPlan();
        final double restart = restartCost == null ? checkpointCost : restartCost;
        final ReplicationFigures replication = ReplicationFigures.of(plan, hosts,
            new RedundancyModel(work, commFraction, mtbf, checkpointCost, restart, Eq13.LITERAL),
            new RedundancyModel(work, commFraction, mtbf, checkpointCost, restart, Eq13.CORRECTED));
        final AcrFigures acr = AcrFigures.of(ranks, mtbf, sdcFit, work, checkpointCost, restart);
        final PlanFigures figures = PlanFigures.of(buddies, hosts, mtbf, checkpointCost, replication, acr);
        final PrintWriter out = spec.commandLine().getOut();
        print(figures, out);
        ReplicationReport.print(replication, acr, out);
        json.write(figures);
        return 0;
    }

    /** @return the replicas the options ask for. */
    private RedundancyPlan redundancyPlan()
    {
        if (!(work > 0 && work < Double.POSITIVE_INFINITY))
        {
            fail("--work must be a positive number of seconds, got " + work);
        }
        if (!(commFraction >= 0 && commFraction <= 1))
        {
            fail("--comm-fraction must be between 0 and 1, got " + commFraction);
        }
        if (restartCost != null && !(restartCost >= 0 && restartCost < Double.POSITIVE_INFINITY))
        {
            fail("--restart-cost must be a number of seconds ≥ 0, got " + restartCost);
        }
        if (!(sdcFit >= 0 && sdcFit < Double.POSITIVE_INFINITY))
        {
            fail("--sdc-fit must be a rate ≥ 0, got " + sdcFit);
        }
        try
        {
            final RedundancyPlan plan = RedundancyPlan.of(ranks, RedundancyDegree.parse(redundancy));
            if (plan.processes() > Integer.MAX_VALUE)
            {
                fail("--redundancy " + redundancy + " asks for " + plan.processes() + " processes, too many");
            }
            return plan;
        }
        catch (final IllegalArgumentException e)
        {
            throw new ParameterException(spec.commandLine(), "--redundancy: " + e.getMessage());
        }
    }

    /** @return the placement the options ask for. */
    private BuddyPlacement placement()
    {
        if (ranks < 2)
        {
            fail("--ranks must be at least 2 (a rank's buddy is another rank), got " + ranks);
        }
        if (hosts < 1 || hosts > ranks)
        {
            fail("--hosts must be between 1 and --ranks (" + ranks + "), got " + hosts);
        }
        if (!(mtbf > 0 && mtbf < Double.POSITIVE_INFINITY))
        {
            fail("--mtbf must be a positive number of seconds, got " + mtbf);
        }
        if (!(checkpointCost > 0 && checkpointCost < Double.POSITIVE_INFINITY))
        {
            fail("--checkpoint-cost must be a positive number of seconds, got " + checkpointCost);
        }
        final List<String> map = PlanFigures.blocks(ranks, hosts);
        try
        {
            return placement == null ? BuddyPlacement.forHosts(map) : BuddyPlacement.of(placement, map);
        }
        catch (final IllegalArgumentException e)
        {
            throw new ParameterException(spec.commandLine(), "--placement: " + e.getMessage());
        }
    }

    private void fail(final String message)
    {
        throw new ParameterException(spec.commandLine(), message);
    }

    private static void print(final PlanFigures f, final PrintWriter out)
    {
        out.printf(Locale.ROOT, "%d ranks on %d host%s (dealt in blocks), host MTBF %s, checkpoint cost %s%n",
            f.ranks(), f.hosts(), f.hosts() == 1 ? "" : "s", duration(f.hostMtbfS()), duration(f.checkpointCostS()));
        final boolean mutual = f.placement().equals("mutual");
        out.println(mutual ? "Buddies: mutual pairs, each keeps a copy of the other's checkpoint" :
            "Buddies: a ring, each rank's checkpoint copied to the next rank");
        int printed = 0;
        for (final PlanFigures.Buddy b : f.buddies())
        {
            if (mutual && b.buddy() < b.rank())
            {
                continue;
            }
            if (printed++ == PRINTED_BUDDIES)
            {
                out.println("  … (--json lists every rank)");
                break;
            }
            out.printf(Locale.ROOT, "  rank %d (%s) %s rank %d (%s)%n", b.rank(), b.host(), mutual ? "<->" : "->",
                b.buddy(), b.buddyHost());
        }
        out.printf(Locale.ROOT, "Fatal sets: %d rank pairs; on hosts, %d host pair%s and %d host%s alone%n",
            f.fatalRankPairs(), f.fatalHostPairs(), f.fatalHostPairs() == 1 ? "" : "s", f.hostsFatalAlone(),
            f.hostsFatalAlone() == 1 ? "" : "s");
        for (final String warning : f.warnings())
        {
            out.println("Warning: " + warning);
        }
        out.printf(Locale.ROOT, "Daly interval: %s (seed 000 §6.1, for the job's MTBF %s = host MTBF / %d host%s)%n",
            duration(f.dalyIntervalS()), duration(f.jobMtbfS()), f.hosts(), f.hosts() == 1 ? "" : "s");
        out.printf(Locale.ROOT, "Catastrophic failures: %.3g per day, one every %s (seed 000 eqs. 7-9 over %d " +
            "host%s, %.3g host failures per day; failures within %s of each other count as concurrent)%n",
            f.catastrophicFailuresPerDay(), every(f.catastrophicFailuresPerDay()), f.hosts(),
            f.hosts() == 1 ? "" : "s", f.hostFailuresPerDay(), duration(f.concurrencyWindowS()));
    }

    /** @return seconds to 6 significant digits, with days beside them from a day on. */
    static String duration(final double seconds)
    {
        final String s = seconds == Math.rint(seconds) && seconds < 1e15 ?
            String.format(Locale.ROOT, "%d s", (long)seconds) :
            String.format(Locale.ROOT, "%.6g s", seconds).replaceAll("(\\.\\d*?)0+ s$", "$1 s").replace(". s", " s");
        return seconds < 86_400 ? s : s + String.format(Locale.ROOT, " (%.3g days)", seconds / 86_400);
    }

    /** @return the mean time between events at {@code perDay}, in hours, days or years. */
    private static String every(final double perDay)
    {
        final double days = 1 / perDay;
        if (days < 1)
        {
            return String.format(Locale.ROOT, "%.3g hours", days * 24);
        }
        return days < DAYS_PER_YEAR ? String.format(Locale.ROOT, "%.3g days", days) :
            String.format(Locale.ROOT, "%.3g years", days / DAYS_PER_YEAR);
    }
}
