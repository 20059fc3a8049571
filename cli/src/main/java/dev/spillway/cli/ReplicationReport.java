package dev.spillway.cli;

import java.io.PrintWriter;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** The replication part of {@code spillway plan}'s text: the chosen degree's spheres, seed 004's model and ACR's. */
final class ReplicationReport
{
    private ReplicationReport()
    {
    }

    static void print(final ReplicationFigures f, final AcrFigures acr, final PrintWriter out)
    {
        printSpheres(f, out);
        printModel(f, out);
        out.printf(Locale.ROOT, "ACR, two replicas comparing checkpoints to catch silent data corruption (seed 003 " +
            "§4.5; hard-error MTBF %s and SDC MTBF %s per replica of %d ranks at %.3g FIT, restart %s, " +
            "utilisation W/(2T)):%n", PlanCommand.duration(acr.hardMtbfS()), PlanCommand.duration(acr.sdcMtbfS()),
            acr.socketsPerReplica(), acr.sdcFit(), PlanCommand.duration(f.restartCostS()));
        for (final AcrFigures.Scheme s : acr.schemes())
        {
            if (s.totalTimeS() < Double.POSITIVE_INFINITY)
            {
                out.printf(Locale.ROOT, "  %-6s interval %s, T %s, utilisation %.1f %%%n", s.scheme(),
                    PlanCommand.duration(s.intervalS()), PlanCommand.duration(s.totalTimeS()), 100 * s.utilisation());
            }
            else
            {
                out.printf(Locale.ROOT, "  %-6s never finishes in expectation%n", s.scheme());
            }
        }
        out.println("Replication is planned only: launching replicas, takeover and SDC digests are not built yet.");
        out.flush();
    }

    private static void printSpheres(final ReplicationFigures f, final PrintWriter out)
    {
        final int ranks = f.floorRanks() + f.ceilRanks();
        if (f.spheres().isEmpty())
        {
            out.printf(Locale.ROOT, "Replication: r = 1, every rank alone%n");
            return;
        }
        final String counts = f.floorRanks() == 0 ? "every rank has " + f.spheres().get(0).slots().size() +
            " replicas" : String.format(Locale.ROOT, "%d of %d ranks have one replica more than the other %d " +
            "(evenly spread from rank 0)", f.ceilRanks(), ranks, f.floorRanks());
        out.printf(Locale.ROOT, "Replication: r = %s, %s; %d processes (seed 004 eqs. 5-8), slots dealt to the " +
            "hosts in blocks%n", f.degree(), counts, f.processes());
        int printed = 0;
        for (final ReplicationFigures.Sphere s : f.spheres())
        {
            if (printed++ == PlanCommand.PRINTED_BUDDIES)
            {
                out.println("  … (--json lists every rank)");
                break;
            }
            final StringBuilder line = new StringBuilder("  rank " + s.rank() + ": slot" +
                (s.slots().size() == 1 ? " " : "s "));
            for (int i = 0; i < s.slots().size(); i++)
            {
                line.append(i == 0 ? "" : ", ").append(s.slots().get(i)).append(" (").append(s.hosts().get(i))
                    .append(')');
            }
            out.println(line);
        }
        for (final String warning : f.warnings())
        {
            out.println("Warning: " + warning);
        }
    }

    private static void printModel(final ReplicationFigures f, final PrintWriter out)
    {
        out.printf(Locale.ROOT, "Seed 004's model (eqs. 1-15; work %s, α %.3g, restart %s; T with eq. 13 as " +
            "printed, and corrected):%n", PlanCommand.duration(f.workS()), f.commFraction(),
            PlanCommand.duration(f.restartCostS()));
        final List<ReplicationFigures.Row> rows = f.model();
        if (!rows.isEmpty())
        {
            out.printf(Locale.ROOT, "  %6s %10s %12s %12s %11s %10s %12s %12s%n", "r", "processes", "sphere MTBF",
                "interval", "checkpoints", "failures", "T", "T corrected");
        }
        for (final ReplicationFigures.Row r : rows)
        {
            out.printf(Locale.ROOT, "%s %6s %10d %12s %12s %11.4g %10.4g %12s %12s%n",
                r.degree().equals(f.degree()) ? " *" : "  ", r.degree(), r.processes(), seconds(r.systemMtbfS()),
                seconds(r.intervalS()), r.checkpoints(), r.failures(), seconds(r.totalTimeS()),
                seconds(r.totalTimeCorrectedS()));
        }
        rows.stream().min(Comparator.comparingDouble(ReplicationFigures.Row::totalTimeS)).ifPresent(best ->
            out.printf(Locale.ROOT, "  fastest: r = %s (* marks --redundancy %s)%n", best.degree(), f.degree()));
        if (f.modelNote() != null)
        {
            out.println("  " + f.modelNote());
        }
    }

    /** @return seconds to 4 significant digits, for the table. */
    private static String seconds(final double s)
    {
        return s < Double.POSITIVE_INFINITY ? String.format(Locale.ROOT, "%.4g s", s) : "never";
    }
}
