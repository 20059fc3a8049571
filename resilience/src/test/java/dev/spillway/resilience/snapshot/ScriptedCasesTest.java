package dev.spillway.resilience.snapshot;

import dev.spillway.resilience.snapshot.Simulation.Step;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scripted cases of spec §C.4 besides Fig. 3, on the default protocol: a write after a checkpoint into a rank
 * still in the wave (G1), a segmented get with the wave between its segments (G4), and successive and concurrent
 * waves (G6).
 */
class ScriptedCasesTest
{
    /** Rank 0 checkpoints, then accumulates +1 into rank 1, which still waits for slow rank 2's marker. */
    static final List<Step> G1 = List.of(Step.initiate(0), Step.deliver(0, 2), Step.deliver(0, 1),
        Step.deliver(1, 0), Step.deliver(2, 0), Step.app(0), Step.deliver(0, 1));
    static final int COUNTER = Workload.CONSTANTS;

    @Test
    void anAccumulateAfterACheckpointIsHeldUntilItsTargetCheckpointed()
    {
        final Simulation.Outcome outcome = g1(EnumSet.noneOf(Mutation.class));
        assertTrue(outcome.passed(), outcome.toString());
        assertEquals(1, outcome.replayWindows()[1][COUNTER], "exactly once after the rollback");
    }

    @Test
    void withoutHoldingTheAccumulateIsAnOrphanAndTheRollbackCountsItTwice()
    {
        final Simulation.Outcome outcome = g1(EnumSet.of(Mutation.NO_HOLDING));
        assertTrue(outcome.found("CROSSING") && outcome.found("CONSERVATION"), outcome.toString());
        assertTrue(outcome.violations().stream().anyMatch(v -> v.startsWith("CROSSING: wave 0 accumulate 0→1")),
            outcome.toString());
        assertEquals(2, outcome.replayWindows()[1][COUNTER], "off by one after the rollback");
    }

    private static Simulation.Outcome g1(final EnumSet<Mutation> mutations)
    {
        final Workload workload = new Workload(Workload.Kind.PUT_HEAVY,
            List.of(List.of(Workload.Op.accumulate(1, 0, 1)), List.of(), List.of()));
        return Simulation.run(Simulation.schedule(workload, SnapshotProtocol.DEFAULT, 1, List.of(), G1)
            .with(mutations, EnumSet.noneOf(Simulation.NicDefect.class)));
    }

    /** Six segments; three have landed when rank 0 starts the wave and flushes rank 1. */
    @Test
    void aSegmentedGetLiesWhollyBeforeTheCut()
    {
        final Simulation.Outcome outcome = Simulation.run(Simulation.schedule(sixWordGet(), SnapshotProtocol.DEFAULT,
            3, List.of(), List.of(Step.app(0), Step.deliver(0, 1), Step.deliver(1, 0), Step.deliver(1, 0),
                Step.deliver(1, 0), Step.initiate(0), Step.deliver(0, 1))));
        assertTrue(outcome.passed(), outcome.toString());
        final Trace.Get get = outcome.trace().gets.get(0);
        assertEquals(6, get.segments.size());
        assertTrue(get.doneAt < outcome.trace().checkpoints.get(0)[0], get.toString());
    }

    /** The same with a multi-threaded NIC: the flush answer overtakes the last three segments (G4). */
    @Test
    void aMultiThreadedNicSplitsTheGetAcrossTheCut()
    {
        final Step emit = new Step(Simulation.StepType.EMIT, 1, 0);
        final Simulation.Outcome outcome = Simulation.run(Simulation.schedule(sixWordGet(), SnapshotProtocol.DEFAULT,
            3, List.of(), List.of(Step.app(0), Step.deliver(0, 1), emit, emit, emit, Step.deliver(1, 0),
                Step.deliver(1, 0), Step.deliver(1, 0), Step.initiate(0), Step.deliver(0, 1), Step.deliver(1, 0),
                Step.deliver(0, 1), Step.deliver(1, 0)))
            .with(EnumSet.noneOf(Mutation.class), EnumSet.of(Simulation.NicDefect.MULTI_THREADED)));
        assertTrue(outcome.violations().stream().anyMatch(v -> v.startsWith("SPLIT:") && v.contains("3 of 6")),
            outcome.toString());
        assertTrue(outcome.found("ROLLBACK_HANG"), outcome.toString());
    }

    private static Workload sixWordGet()
    {
        return new Workload(Workload.Kind.SEGMENTED_GETS, List.of(List.of(Workload.Op.get(1, 1, 6)), List.of()));
    }

    @Test
    void twoInitiatorsOfOneWaveMakeOneWave()
    {
        final Simulation.Schedule drawn = Schedules.draw(SnapshotProtocol.DEFAULT, 2);
        final Simulation.Outcome outcome = Simulation.run(Simulation.schedule(drawn.workload(), drawn.protocol(), 2,
            List.of(), List.of(Step.initiate(0), Step.initiate(4))));
        assertTrue(outcome.passed(), outcome.toString());
        assertEquals(List.of(0), outcome.trace().completeWaves());
        assertEquals(5 * 4, outcome.trace().count(0, ControlMessage.Kind.MARKER));
    }

    /** Rank 0 starts wave 1 while rank 1 still waits for rank 2's wave-0 marker: rank 1 keeps it for wave 1. */
    @Test
    void aMarkerOfTheNextWaveWaitsForTheCurrentCheckpoint()
    {
        final Simulation.Schedule drawn = Schedules.draw(SnapshotProtocol.DEFAULT, 1);
        final Simulation.Outcome outcome = Simulation.run(Simulation.schedule(drawn.workload(), drawn.protocol(), 1,
            List.of(), List.of(Step.initiate(0), Step.deliver(0, 1), Step.deliver(1, 0), Step.deliver(0, 2),
                Step.deliver(2, 0), Step.initiate(0), Step.deliver(0, 1), Step.deliver(0, 1), Step.deliver(2, 1))));
        assertTrue(outcome.passed(), outcome.toString());
        assertEquals(List.of(0, 1), outcome.trace().completeWaves());
        for (final int wave : List.of(0, 1))
        {
            assertEquals(3 * 2, outcome.trace().count(wave, ControlMessage.Kind.MARKER));
            final long[] cut = outcome.trace().checkpoints.get(wave);
            assertTrue(wave == 0 || cut[1] > outcome.trace().checkpoints.get(0)[1]);
        }
    }
}
