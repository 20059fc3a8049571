package dev.spillway.resilience.model;

import java.util.function.IntToDoubleFunction;

/**
 * One level of the failure-domain hierarchy (nodes, power supplies, switches, racks; here hosts) in eq. 7.
 *
 * @param name               for reports.
 * @param elements           {@code H_j}, the level's elements.
 * @param failuresPerDay     {@code P_j(x)}: events per day in which x elements of the level fail together.
 * @param catastrophicGiven  {@code P_j(cf | x)}: the probability that such an event is catastrophic.
 */
public record FailureLevel(String name, int elements, IntToDoubleFunction failuresPerDay,
    IntToDoubleFunction catastrophicGiven)
{
    /** Checks the element count. */
    public FailureLevel
    {
        if (elements < 1)
        {
            throw new IllegalArgumentException("level " + name + " needs at least one element, got " + elements);
        }
    }

    /** A level the groups are placed topology-aware on: eq. 8. */
    public static FailureLevel topologyAware(final String name, final int elements, final int groupSize,
        final IntToDoubleFunction failuresPerDay)
    {
        return placed(name, elements, FatalSets.ofGroups(elements, groupSize), failuresPerDay);
    }

    /** A level placed without regard to groups: every failure counts as catastrophic (eq. 9's worst case). */
    public static FailureLevel unaware(final String name, final int elements,
        final IntToDoubleFunction failuresPerDay)
    {
        return new FailureLevel(name, elements, failuresPerDay, x -> 1);
    }

    /** A level whose fatal sets are counted from the actual placement. */
    public static FailureLevel placed(final String name, final int elements, final FatalSets fatal,
        final IntToDoubleFunction failuresPerDay)
    {
        return new FailureLevel(name, elements, failuresPerDay,
            x -> ReliabilityModel.catastrophicGiven(elements, fatal, x));
    }
}
