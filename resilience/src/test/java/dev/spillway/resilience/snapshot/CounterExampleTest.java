package dev.spillway.resilience.snapshot;

import dev.spillway.resilience.snapshot.Simulation.Step;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seed 002's Fig. 3 (§IV), scripted as in the seed note §3: rank 1 gets from rank 0 while rank 2 initiates a wave;
 * rank 0 serves the request behind its own marker, and rank 1 holds both markers before the response lands.
 */
class CounterExampleTest
{
    static final List<Step> FIG_3 = List.of(
        Step.app(1),          // 1. rank 1 (NORMAL) requests a word of rank 0's window
        Step.initiate(2),     // 2. rank 2 initiates: markers to 0 and 1
        Step.deliver(2, 0),   // 3. rank 0 enters the wave: markers to 1 and 2
        Step.deliver(1, 0),   // 4. rank 0's NIC serves the request: the response is behind rank 0's marker
        Step.deliver(2, 1),   // 5. rank 1 enters the wave (the partial barrier flushes rank 0 first)
        Step.deliver(0, 1),   // 6. rank 1 has rank 0's marker: vanilla checkpoints with the get pending
        Step.deliver(1, 0),   // 7. rank 0 checkpoints (the partial barrier: answers the flush behind the response)
        Step.deliver(0, 1));  // 8. the response lands

    static Simulation.Outcome fig3(final SnapshotProtocol protocol)
    {
        final Workload workload = new Workload(Workload.Kind.GET_HEAVY,
            List.of(List.of(), List.of(Workload.Op.get(0, 3, 1)), List.of()));
        return Simulation.run(Simulation.schedule(workload, protocol, 2, List.of(), FIG_3));
    }

    @Test
    void vanillaLetsTheResponseCrossTheCutAndTheRollbackHangs()
    {
        final Simulation.Outcome outcome = fig3(SnapshotProtocol.VANILLA);
        System.out.println("Fig. 3 under VANILLA: " + outcome.violations());
        final List<String> crossings = outcome.violations().stream().filter(v -> v.startsWith("CROSSING:")).toList();
        assertEquals(1, crossings.size(), outcome.toString());
        assertTrue(crossings.get(0).contains("get response 0→1"), crossings.get(0));
        assertTrue(outcome.found("OVERLAP"), outcome.toString());
        final String hang = outcome.violations().stream().filter(v -> v.startsWith("ROLLBACK_HANG:")).findFirst()
            .orElseThrow(() -> new AssertionError("the rollback did not hang: " + outcome));
        assertTrue(hang.contains("quiescent") && hang.contains("rank 1 at op 1/1, 1 gets pending"), hang);
        assertFalse(outcome.found("OUTPUT"), "the failure-free run itself is correct: " + outcome);
    }

    @ParameterizedTest
    @EnumSource(value = SnapshotProtocol.class, names = {"DOUBLE_BARRIER", "PARTIAL_DOUBLE_BARRIER"})
    void theBarriersKeepTheGetBeforeTheCut(final SnapshotProtocol protocol)
    {
        final Simulation.Outcome outcome = fig3(protocol);
        assertTrue(outcome.passed(), outcome.toString());
        assertTrue(outcome.replayWindows() != null, "no wave completed: " + outcome);
    }

    @Test
    void delayOverlapsTheCutWithTheRequestInTheTargetsSnapshot()
    {
        final Simulation.Outcome outcome = fig3(SnapshotProtocol.DELAY);
        assertTrue(outcome.found("OVERLAP"), outcome.toString());
        assertEquals(1, outcome.violations().size(), "only the overlap: " + outcome);
    }
}
