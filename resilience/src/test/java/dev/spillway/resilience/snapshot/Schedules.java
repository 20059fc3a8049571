package dev.spillway.resilience.snapshot;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded random schedules over n ∈ {2, 3, 5, 8} and the four workload kinds, with one to three wave initiations at
 * random steps; the protocol does not take part in the draw, so one seed gives every protocol the same program.
 */
final class Schedules
{
    static final int[] SIZES = {2, 3, 5, 8};

    private Schedules()
    {
    }

    static Simulation.Schedule draw(final SnapshotProtocol protocol, final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 5);
        final int n = SIZES[(int) (seed % SIZES.length)];
        final Workload.Kind kind = Workload.Kind.values()[(int) (seed / SIZES.length % Workload.Kind.values().length)];
        final Workload workload = Workload.draw(kind, n, random);
        final int operations = workload.programs().stream().mapToInt(List::size).sum();
        final List<Simulation.Initiation> initiations = new ArrayList<>();
        final int count = 1 + random.nextInt(3);
        for (int i = 0; i < count; i++)
        {
            initiations.add(new Simulation.Initiation(random.nextLong(3L * operations + 1), random.nextInt(n)));
        }
        initiations.sort(Comparator.comparingLong(Simulation.Initiation::atStep));
        return Simulation.schedule(workload, protocol, seed, initiations, List.of());
    }
}
