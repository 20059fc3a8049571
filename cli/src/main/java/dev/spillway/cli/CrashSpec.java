package dev.spillway.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A crash point armed in one rank of one incarnation of a launched job ({@code launch --crash-at
 * RANK:POINT[:HIT][@INCARNATION]}), for fault-injection tests: that rank's JVM gets {@code -Dspillway.crashAt=POINT}
 * and {@code -Dspillway.crashAtHit=HIT}, parks at the point's HIT-th hit and prints {@code CRASHPOINT POINT PID} for
 * the test to kill it. Relaunched incarnations are not armed unless named, so a relaunch does not park again.
 *
 * @param rank        the rank.
 * @param point       a {@code CrashPoints} name, such as {@code transfer.send}.
 * @param hit         which hit parks, from 1.
 * @param incarnation the incarnation armed, 0 (the first launch) by default.
 */
record CrashSpec(int rank, String point, int hit, int incarnation)
{
    /**
     * Not a crash: {@code launch --flip-at RANK:HIT[@INCARNATION]} flips one bit of what that rank's HIT-th task
     * wrote ({@code BitFlips}), for silent-data-corruption tests.
     */
    static final String BIT_FLIP = "bit-flip";

    /** @throws IllegalArgumentException naming the malformed spec. */
    static CrashSpec parse(final String spec, final int ranks)
    {
        final String usage = "--crash-at '" + spec + "': expected RANK:POINT[:HIT][@INCARNATION], e.g. " +
            "1:transfer.send:3@0";
        final int at = spec.indexOf('@');
        final String[] f = (at < 0 ? spec : spec.substring(0, at)).split(":");
        try
        {
            if (f.length < 2 || f.length > 3 || f[1].isBlank())
            {
                throw new IllegalArgumentException(usage);
            }
            final CrashSpec c = new CrashSpec(Integer.parseInt(f[0]), f[1], f.length == 3 ? Integer.parseInt(f[2]) : 1,
                at < 0 ? 0 : Integer.parseInt(spec.substring(at + 1)));
            if (c.rank < 0 || c.rank >= ranks || c.hit < 1 || c.incarnation < 0)
            {
                throw new IllegalArgumentException(usage + " (rank in 0.." + (ranks - 1) +
                    ", hit ≥ 1, incarnation ≥ 0)");
            }
            return c;
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException(usage, e);
        }
    }

    /**
     * @return the JVM flags for {@code rank} in {@code incarnation}: those of the first crash point and the first
     *         {@link #BIT_FLIP} naming both.
     */
    static List<String> flags(final List<CrashSpec> specs, final int rank, final int incarnation)
    {
        final List<String> flags = new ArrayList<>();
        boolean crash = false;
        boolean flip = false;
        for (final CrashSpec c : specs)
        {
            if (c.rank != rank || c.incarnation != incarnation)
            {
                continue;
            }
            if (c.point.equals(BIT_FLIP) && !flip)
            {
                flip = true;
                flags.add("-Dspillway.flipAt=" + c.hit);
            }
            else if (!c.point.equals(BIT_FLIP) && !crash)
            {
                crash = true;
                flags.addAll(List.of("-Dspillway.crashAt=" + c.point, "-Dspillway.crashAtHit=" + c.hit));
            }
        }
        return flags;
    }
}
