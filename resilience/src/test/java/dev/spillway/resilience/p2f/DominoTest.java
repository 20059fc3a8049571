package dev.spillway.resilience.p2f;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Oracle 4 on W2, the domino pattern: after a failure-free run, a failure of the last rank drags plain uncoordinated
 * checkpointing (nothing logged) back to the start on every rank, while past-to-future logging keeps every rank at or
 * above the failed rank's restart epoch.
 */
class DominoTest
{
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})
    void withoutLoggingTheDominoReachesTheStartAndWithItNoRankGoesBelowTheFailure(final int ranks)
    {
        final Workload workload = Workloads.domino(ranks, 12, Workloads.clusterEpochs(ranks, ranks, 2));
        final Simulation simulation = new Simulation(new Simulation.Schedule(workload, 1, List.of(), P2fOptions.DEFAULTS,
            EnumSet.noneOf(Mutation.class), false, EnumSet.allOf(Simulation.Oracle.class)));
        assertTrue(simulation.run(null).passed());
        final int victim = ranks - 1;
        final int[][] lines = simulation.linesIfFailed(victim);
        final int[] protocol = lines[0];
        final int[] baseline = lines[1];
        System.out.println("W2 n=" + ranks + ", rank " + victim + " fails: past-to-future " + Simulation.render(protocol)
            + ", no logging " + Simulation.render(baseline) + ", initial epochs " + Arrays.toString(simulation.initialEpochs()));
        assertArrayEquals(simulation.initialEpochs(), baseline, "without logging every rank goes back to its start");
        for (int r = 0; r < ranks; r++)
        {
            assertTrue(protocol[r] == RecoveryLine.NONE || protocol[r] >= protocol[victim],
                "rank " + r + " goes back to epoch " + protocol[r] + ", below the failed rank's " + protocol[victim]);
            assertTrue(protocol[r] == RecoveryLine.NONE || protocol[r] > simulation.initialEpochs()[r],
                "rank " + r + " goes back to its start although messages were logged");
        }
    }
}
