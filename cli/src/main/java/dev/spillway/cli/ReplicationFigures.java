package dev.spillway.cli;

import dev.spillway.resilience.model.RedundancyModel;
import dev.spillway.resilience.model.RedundancyModel.Eq13;
import dev.spillway.resilience.model.RedundancyModel.Prediction;
import dev.spillway.resilience.redundancy.RedundancyDegree;
import dev.spillway.resilience.redundancy.RedundancyPlan;
import dev.spillway.resilience.redundancy.SpherePlacement;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * What {@code spillway plan} says about replicas (seed 004): the plan for the chosen degree and the model's
 * expected run time for it and for 1x to 3x in quarter steps, as {@code --json} writes it (seconds).
 *
 * @param degree              r.
 * @param floorRanks          {@code N_⌊r⌋}, ranks with ⌊r⌋ replicas.
 * @param ceilRanks           {@code N_⌈r⌉}, ranks with ⌈r⌉ replicas, spread evenly from rank 0.
 * @param processes           {@code N_total}.
 * @param spheres             each rank's replicas, when some rank has more than one.
 * @param sharedHostSpheres   spheres with two replicas on one host.
 * @param warnings            one line per host holding two replicas of a sphere.
 * @param workS               t, the failure-free run time without replicas.
 * @param commFraction        α.
 * @param restartCostS        R.
 * @param model               the model for each degree where it applies, the chosen one included.
 * @param modelNote           why degrees are left out of {@code model}, or null.
 */
record ReplicationFigures(String degree, int floorRanks, int ceilRanks, long processes, List<Sphere> spheres,
    int sharedHostSpheres, List<String> warnings, double workS, double commFraction, double restartCostS,
    List<Row> model, String modelNote)
{
    /** The degrees the model is shown for, besides the chosen one: seed 004's 1x to 3x in quarter steps. */
    private static final List<String> DEGREES = List.of("1", "1.25", "1.5", "1.75", "2", "2.25", "2.5", "2.75", "3");

    /**
     * A logical rank's replicas.
     *
     * @param rank  the rank.
     * @param slots the process slots (physical ranks) that run it.
     * @param hosts their hosts.
     */
    record Sphere(int rank, List<Integer> slots, List<String> hosts)
    {
    }

    /**
     * The model for one degree.
     *
     * @param degree              r.
     * @param processes           {@code N_total}.
     * @param redundantTimeS      {@code t_Red}, eq. 1.
     * @param systemMtbfS         Θ, the mean time between sphere failures, eqs. 9-10.
     * @param intervalS           Daly's interval for Θ, eq. 15.
     * @param checkpoints         {@code t_Red/δ}.
     * @param failures            {@code λ·T}, with the literal eq. 13.
     * @param totalTimeS          T, eq. 14 with eq. 13 as printed (the paper's figures).
     * @param totalTimeCorrectedS T with eq. 13 corrected.
     */
    record Row(String degree, long processes, double redundantTimeS, double systemMtbfS, double intervalS,
        double checkpoints, double failures, double totalTimeS, double totalTimeCorrectedS)
    {
    }

    /**
     * @param plan      the chosen degree's plan.
     * @param hosts     process slots are dealt to {@code host0…} in blocks.
     * @param literal   the model with eq. 13 as printed.
     * @param corrected the same with it corrected.
     */
    static ReplicationFigures of(final RedundancyPlan plan, final int hosts, final RedundancyModel literal,
        final RedundancyModel corrected)
    {
        final SpherePlacement placement = plan.place(PlanFigures.blocks(Math.toIntExact(plan.processes()), hosts));
        final List<Sphere> spheres = new ArrayList<>();
        for (int rank = 0; plan.degree().ceil() > 1 && rank < plan.ranks(); rank++)
        {
            final List<Integer> slots = placement.slotsOf(rank);
            spheres.add(new Sphere(rank, slots, slots.stream().map(placement::hostOf).toList()));
        }
        final TreeSet<RedundancyDegree> degrees = new TreeSet<>((a, b) -> a.value().compareTo(b.value()));
        DEGREES.forEach(d -> degrees.add(RedundancyDegree.parse(d)));
        degrees.add(plan.degree());
        final List<Row> rows = new ArrayList<>();
        String note = null;
        for (final RedundancyDegree r : degrees)
        {
            if (!literal.applies(r))
            {
                note = "seed 004's eq. 9 needs the redundant run time below the host MTBF; degrees from " + r +
                    " up are left out";
                break;
            }
            final Prediction p = literal.predict(plan.ranks(), r);
            rows.add(new Row(r.toString(), p.processes(), p.redundantTime(), p.systemMtbf(), p.interval(),
                p.checkpoints(), p.failures(), p.totalTime(), corrected.predict(plan.ranks(), r).totalTime()));
        }
        return new ReplicationFigures(plan.degree().toString(), plan.floorRanks(), plan.ceilRanks(), plan.processes(),
            spheres, placement.spheresSharingAHost(), placement.warnings(), literal.work(), literal.commFraction(),
            literal.restartCost(), rows, note);
    }
}
