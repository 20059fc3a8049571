package dev.spillway.ranks;

import java.util.List;
import java.util.Map;

/**
 * A recovery session as rank 0 coordinated it.
 *
 * @param session     its number in this incarnation of rank 0.
 * @param lost        the ranks lost or already rolling back when it opened.
 * @param rolledBack  per rank the line sent back (the lost ones included), the global index of the cut it restarts
 *                    from ({@code Cut.LOCAL}: the start); every other rank ran on.
 * @param lineSeconds from the session's opening to the line.
 */
public record RecoveryOutcome(long session, List<Integer> lost, Map<Integer, Long> rolledBack, double lineSeconds)
{
}
