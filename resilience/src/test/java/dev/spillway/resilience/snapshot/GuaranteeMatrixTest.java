package dev.spillway.resilience.snapshot;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seed 002's Table I, reproduced as a matrix of guarantees (spec §C.4): every protocol runs the same seeded schedules
 * over n ∈ {2, 3, 5, 8} and put-heavy, get-heavy, mixed and segmented-get workloads; a protocol guarantees the
 * absence of overlap (of crossing) when no schedule shows one. The protocols that guarantee both must also pass
 * every other check on every schedule (liveness, final state, conservation in the snapshot, rollback to the same
 * final state); Delay may only overlap, each overlapping get with its request held in the target's snapshot.
 */
class GuaranteeMatrixTest
{
    static final int SCHEDULES = Integer.getInteger("spillway.test.snapshotSchedules", 10_000);

    /** Table I of seed 002 (Overlap, Cross), read as "guarantees the absence of", with the partial barrier's row. */
    static final Map<SnapshotProtocol, List<Boolean>> TABLE_I = new EnumMap<>(Map.of(
        SnapshotProtocol.VANILLA, List.of(false, false),
        SnapshotProtocol.DELAY, List.of(false, true),
        SnapshotProtocol.PEEK_AND_GET, List.of(true, true),
        SnapshotProtocol.DOUBLE_BARRIER, List.of(true, true),
        SnapshotProtocol.PARTIAL_DOUBLE_BARRIER, List.of(true, true)));

    @Test
    void theSchedulesReproduceTableI()
    {
        final Map<SnapshotProtocol, List<Boolean>> observed = new EnumMap<>(SnapshotProtocol.class);
        final List<String> failures = new ArrayList<>();
        for (final SnapshotProtocol protocol : SnapshotProtocol.values())
        {
            final Map<String, Integer> found = new TreeMap<>();
            int waves = 0;
            for (int seed = 0; seed < SCHEDULES; seed++)
            {
                final Simulation.Outcome outcome = Simulation.run(Schedules.draw(protocol, seed));
                waves += outcome.trace().completeWaves().size();
                outcome.violations().forEach(v -> found.merge(v.substring(0, v.indexOf(':')), 1, Integer::sum));
                if (!allowed(protocol, outcome) && failures.size() < 5)
                {
                    failures.add(outcome.toString());
                }
            }
            observed.put(protocol, List.of(!found.containsKey("OVERLAP"), !found.containsKey("CROSSING")));
            System.out.printf("%-22s overlap absent %-5s crossing absent %-5s (%d schedules, %d waves; %s)%n",
                protocol, !found.containsKey("OVERLAP"), !found.containsKey("CROSSING"), SCHEDULES, waves, found);
        }
        assertEquals(TABLE_I, observed);
        for (final SnapshotProtocol protocol : SnapshotProtocol.values())
        {
            assertEquals(TABLE_I.get(protocol), List.of(protocol.guaranteesNoOverlap(),
                protocol.guaranteesNoCrossing()), protocol + "'s stated guarantees");
        }
        assertTrue(failures.isEmpty(), String.join("\n", failures));
    }

    private static boolean allowed(final SnapshotProtocol protocol, final Simulation.Outcome outcome)
    {
        return switch (protocol)
        {
            case VANILLA -> true;
            case DELAY -> outcome.violations().stream().allMatch(v -> v.startsWith("OVERLAP:"));
            default -> outcome.passed();
        };
    }
}
