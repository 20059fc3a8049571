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
    /** The protocol's own refusal to go on without a transfer it must send again ({@link PastToFuture#replaysTo}). */
    static final String LOUD = "LOUD_PROTOCOL_ERROR";

    enum Control
    {
        /** Phase gating off: a replay overtakes the orphan it depends on and an anonymous receive matches wrongly. */
        GATING_OFF(new P2fOptions(false, false), EnumSet.noneOf(Mutation.class), all(), "CAUSAL_DELIVERY"),
        /**
         * Logging off, every ack a dependency: the line rolls back more than the trace asks (towards the domino).
         * The minimal-logging oracle is left out so that the consequence itself must show.
         */
        LOGGING_OFF(P2fOptions.DEFAULTS, EnumSet.of(Mutation.NO_LOGGING), allBut(Simulation.Oracle.MINIMAL_LOGGING),
            "RECOVERY_LINE"),
        /** Duplicates delivered again: orphans never clear, so the recovery never ends. */
        DUPLICATE_SUPPRESSION_OFF(P2fOptions.DEFAULTS, EnumSet.of(Mutation.NO_DUPLICATE_SUPPRESSION), all(),
            "LIVENESS"),
        LOG_EVERYTHING(new P2fOptions(true, true), EnumSet.noneOf(Mutation.class), all(), "MINIMAL_LOGGING"),
        /** A generation without the logs of sends acked after its cut: a later recovery finds a transfer missing. */
        ACK_DRAIN_OFF(P2fOptions.DEFAULTS, EnumSet.of(Mutation.NO_ACK_DRAIN), all(), LOUD),
        /** An orphan sent again without its bookkeeping: a second failure finds a transfer missing. */
        DUPLICATE_REACK_OFF(P2fOptions.DEFAULTS, EnumSet.of(Mutation.NO_DUPLICATE_REACK), all(), LOUD);

        final P2fOptions options;
        final Set<Mutation> mutations;
        final Set<Simulation.Oracle> oracles;
        final String catcher;

        Control(final P2fOptions options, final Set<Mutation> mutations, final Set<Simulation.Oracle> oracles,
            final String catcher)
        {
            this.options = options;
            this.mutations = mutations;
            this.oracles = oracles;
            this.catcher = catcher;
        }

        private static Set<Simulation.Oracle> all()
        {
            return EnumSet.allOf(Simulation.Oracle.class);
        }

        private static Set<Simulation.Oracle> allBut(final Simulation.Oracle oracle)
        {
            final Set<Simulation.Oracle> oracles = all();
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
                caughtBy.merge(violation.startsWith("protocol failed loudly") ? LOUD
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
        assertTrue(caughtBy.containsKey(control.catcher), control + " should be caught by " + control.catcher
            + ", was by " + caughtBy);
    }
}
