package dev.spillway.resilience.p2f;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The negative controls of spec §A.9: each deliberate defect must make the simulator suite fail, or the suite proves
 * nothing about what the defect breaks. Each control runs the suite's first schedules and counts, by oracle, the
 * schedules that caught it.
 */
class MutationControlsTest
{
    static final int SCHEDULES = Integer.getInteger("spillway.test.p2fControlSchedules", 4_000);

    enum Control
    {
        /** Phase gating off: a replay overtakes the orphan it depends on and an anonymous receive matches wrongly. */
        GATING_OFF(new P2fOptions(false, false), EnumSet.noneOf(Mutation.class), EnumSet.allOf(Simulation.Oracle.class)),
        /** Logging off; the minimal-logging oracle is left out so that the loss itself must show. */
        LOGGING_OFF(P2fOptions.DEFAULTS, EnumSet.of(Mutation.NO_LOGGING), allBut(Simulation.Oracle.MINIMAL_LOGGING)),
        DUPLICATE_SUPPRESSION_OFF(P2fOptions.DEFAULTS, EnumSet.of(Mutation.NO_DUPLICATE_SUPPRESSION),
            EnumSet.allOf(Simulation.Oracle.class)),
        LOG_EVERYTHING(new P2fOptions(true, true), EnumSet.noneOf(Mutation.class), EnumSet.allOf(Simulation.Oracle.class)),
        ACK_DRAIN_OFF(P2fOptions.DEFAULTS, EnumSet.of(Mutation.NO_ACK_DRAIN), EnumSet.allOf(Simulation.Oracle.class)),
        DUPLICATE_REACK_OFF(P2fOptions.DEFAULTS, EnumSet.of(Mutation.NO_DUPLICATE_REACK),
            EnumSet.allOf(Simulation.Oracle.class));

        final P2fOptions options;
        final Set<Mutation> mutations;
        final Set<Simulation.Oracle> oracles;

        Control(final P2fOptions options, final Set<Mutation> mutations, final Set<Simulation.Oracle> oracles)
        {
            this.options = options;
            this.mutations = mutations;
            this.oracles = oracles;
        }

        private static Set<Simulation.Oracle> allBut(final Simulation.Oracle oracle)
        {
            final Set<Simulation.Oracle> oracles = EnumSet.allOf(Simulation.Oracle.class);
            oracles.remove(oracle);
            return oracles;
        }
    }

    @ParameterizedTest
    @EnumSource(Control.class)
    void theSuiteCatchesTheDefect(final Control control)
    {
        final Map<String, Integer> caughtBy = new TreeMap<>();
        String first = null;
        int failed = 0;
        for (int seed = 0; seed < SCHEDULES; seed++)
        {
            final Simulation.Outcome outcome = SimulatorSuiteTest.Schedules.run(seed, control.options, control.mutations,
                control.oracles);
            if (!outcome.passed())
            {
                failed++;
                final String violation = outcome.violations().get(0);
                caughtBy.merge(violation.startsWith("protocol failed loudly") ? "LOUD_PROTOCOL_ERROR"
                    : violation.substring(0, violation.indexOf(':')), 1, Integer::sum);
                if (first == null)
                {
                    first = outcome.toString();
                }
            }
        }
        System.out.println(control + ": " + failed + " of " + SCHEDULES + " schedules failed, first caught by "
            + caughtBy + "; first: " + (first == null ? "none" : first.substring(0, Math.min(600, first.length()))));
        assertTrue(failed > 0, control + " passed all " + SCHEDULES + " schedules: the suite does not test it");
    }
}
