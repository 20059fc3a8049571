package dev.spillway.resilience.p2f;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The protocol on the simulator (spec §A.9): seeded schedules over W1–W5 and 2–16 ranks, each with up to three
 * failures at seeded points, checked by every oracle.
 */
class SimulatorSuiteTest
{
    static final int SCHEDULES = Integer.getInteger("spillway.test.p2fSchedules", 10_000);

    @Test
    void everyOracleHoldsOnEverySchedule()
    {
        final Map<String, Long> totals = new TreeMap<>();
        final List<String> failures = new ArrayList<>();
        final int first = Integer.getInteger("spillway.test.p2fFirst", 0);
        for (int seed = first; seed < first + SCHEDULES; seed++)
        {
            final Simulation.Outcome outcome = Schedules.run(seed, P2fOptions.DEFAULTS, EnumSet.noneOf(Mutation.class),
                EnumSet.allOf(Simulation.Oracle.class));
            outcome.stats().forEach((stat, value) -> totals.merge(stat, value, Long::sum));
            if (!outcome.passed() && failures.size() < 5)
            {
                failures.add(outcome.toString());
            }
        }
        System.out.println(SCHEDULES + " schedules: " + totals);
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    /** Draws schedules from seeds, shared with the mutation controls. */
    static final class Schedules
    {
        private Schedules()
        {
        }

        static Simulation.Outcome run(final long seed, final P2fOptions options, final Set<Mutation> mutations,
            final Set<Simulation.Oracle> oracles)
        {
            final SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 17);
            final Workload workload = Workloads.draw((int) (seed % 5), random);
            final List<List<Simulation.Delivery>> expected = Simulation.reference(workload, random.nextLong());
            final List<Simulation.Failure> failures = new ArrayList<>();
            final int count = random.nextInt(4);
            final long span = 3L * workload.operations();
            final Simulation.Trigger[] triggers = Simulation.Trigger.values();
            for (int f = 0; f < count; f++)
            {
                final long at = random.nextLong(span + 1);
                final int victim = random.nextInt(workload.ranks());
                failures.add(new Simulation.Failure(at, victim, triggers[random.nextInt(triggers.length)]));
                if (random.nextInt(6) == 0)
                {
                    failures.add(new Simulation.Failure(at, random.nextInt(workload.ranks()), Simulation.Trigger.ANY));
                }
            }
            final Simulation.Schedule schedule = new Simulation.Schedule(workload, seed, failures, options, mutations,
                random.nextBoolean(), oracles);
            return new Simulation(schedule).run(expected);
        }
    }
}
