package dev.spillway.resilience.snapshot;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The negative controls of spec §C.4: each deliberate defect must fail some of the seeded schedules, caught by the
 * check that names what it breaks, or the suite proves nothing about it.
 */
class NegativeControlsTest
{
    static final int SCHEDULES = Integer.getInteger("spillway.test.snapshotControlSchedules", 2_000);

    enum Control
    {
        /** Plain Chandy–Lamport markers: a get response crosses the cut (Fig. 3). */
        VANILLA(SnapshotProtocol.VANILLA, EnumSet.noneOf(Mutation.class), EnumSet.noneOf(Simulation.NicDefect.class),
            "CROSSING"),
        /** No holding after a checkpoint: an accumulate lands before its target's checkpoint (G1). */
        NO_HOLDING(SnapshotProtocol.DEFAULT, EnumSet.of(Mutation.NO_HOLDING),
            EnumSet.noneOf(Simulation.NicDefect.class), "CONSERVATION"),
        /** Several NIC threads send one response's segments: the flush answer overtakes some (G4). */
        MULTI_THREADED_NIC(SnapshotProtocol.DEFAULT, EnumSet.noneOf(Mutation.class),
            EnumSet.of(Simulation.NicDefect.MULTI_THREADED), "SPLIT"),
        /** Delay's held read requests left out of the snapshot: a rolled-back get waits for ever (§IV-D-b). */
        DELAY_WITHOUT_NIC_STATE(SnapshotProtocol.DELAY, EnumSet.noneOf(Mutation.class),
            EnumSet.of(Simulation.NicDefect.HELD_REQUESTS_NOT_SAVED), "ROLLBACK_HANG"),
        /** Delay serving its held requests right after its checkpoint: the response is an orphan, served twice. */
        DELAY_WITHOUT_HOLDING(SnapshotProtocol.DELAY, EnumSet.of(Mutation.NO_HOLDING),
            EnumSet.noneOf(Simulation.NicDefect.class), "DUPLICATE");

        final SnapshotProtocol protocol;
        final Set<Mutation> mutations;
        final Set<Simulation.NicDefect> defects;
        final String catcher;

        Control(final SnapshotProtocol protocol, final Set<Mutation> mutations, final Set<Simulation.NicDefect> defects,
            final String catcher)
        {
            this.protocol = protocol;
            this.mutations = mutations;
            this.defects = defects;
            this.catcher = catcher;
        }
    }

    @ParameterizedTest
    @EnumSource(Control.class)
    void theSchedulesCatchTheDefect(final Control control)
    {
        final Map<String, Integer> caught = caught(control.protocol, control.mutations, control.defects);
        System.out.println(control + ": schedules failing, by check: " + caught);
        assertTrue(caught.containsKey(control.catcher), control + " should be caught by " + control.catcher
            + ", was by " + caught);
    }

    /** The prototype's first column (seed note §11): without holding, every protocol lets something cross. */
    @ParameterizedTest
    @EnumSource(SnapshotProtocol.class)
    void everyProtocolNeedsHolding(final SnapshotProtocol protocol)
    {
        final Map<String, Integer> caught = caught(protocol, EnumSet.of(Mutation.NO_HOLDING),
            EnumSet.noneOf(Simulation.NicDefect.class));
        System.out.println(protocol + " without holding: schedules failing, by check: " + caught);
        assertTrue(caught.containsKey("CROSSING"), protocol + " without holding: " + caught);
    }

    private static Map<String, Integer> caught(final SnapshotProtocol protocol, final Set<Mutation> mutations,
        final Set<Simulation.NicDefect> defects)
    {
        final Map<String, Integer> caught = new TreeMap<>();
        for (int seed = 0; seed < SCHEDULES; seed++)
        {
            final Simulation.Outcome outcome = Simulation.run(Schedules.draw(protocol, seed).with(mutations, defects));
            outcome.violations().stream().map(v -> v.substring(0, v.indexOf(':'))).distinct()
                .forEach(check -> caught.merge(check, 1, Integer::sum));
        }
        return caught;
    }
}
