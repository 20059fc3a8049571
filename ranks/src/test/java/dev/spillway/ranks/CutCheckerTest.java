package dev.spillway.ranks;

import dev.spillway.checkpoint.Cut;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cut checker on hand-made recordings of two ranks: the task at global index 0 writes 'x' on rank 0, the task at
 * global index 1 reads it on rank 1, so rank 0 sends 'x' v1 and rank 1 receives it; both ranks cut at global index 2.
 */
class CutCheckerTest
{
    private static final String SPLIT = "the global cut at index 2 splits the transfer of 'x' v1 from rank 0 to rank 1";

    @Test
    void aConsistentCutPasses()
    {
        final List<CutRecording> ranks = recordings();
        assertEquals(List.of(), CutChecker.violations(ranks, committed(ranks.get(0), ranks.get(1))));
    }

    /** The negative control: the checker can fail. */
    @Test
    void aFrontierShiftedBeforeTheReceiveIsReported()
    {
        final List<CutRecording> ranks = recordings();
        final List<String> v = CutChecker.violations(ranks, List.of(List.of(cut(2, 2)), List.of(cut(2, 0))));
        assertTrue(v.stream().anyMatch(s -> s.startsWith(SPLIT) && s.contains("receive #0 on rank 1 is after")),
            v.toString());
        assertTrue(v.contains("rank 1 committed its cut at global index 2 with frontier #0, but requested it before " +
            "local task #2"), v.toString());
    }

    /** A recording in which rank 1 cut too early: before the receive for the task at global index 1. */
    @Test
    void aCutRequestedBeforeTheReceiveIsReported()
    {
        final CutRecording zero = new CutRecording(0);
        zero.task(0, 0);
        zero.transfer(true, 0, 1, "x", 1, 1, 1);
        zero.cut(2, 2);
        final CutRecording one = new CutRecording(1);
        one.cut(2, 0);
        one.transfer(false, 0, 1, "x", 1, 1, 0);
        one.task(1, 1);
        final List<String> v = CutChecker.violations(List.of(zero, one), committed(zero, one));
        assertEquals(List.of(SPLIT + " (task at global index 1): its send #1 on rank 0 is before that rank's " +
            "frontier #2, its receive #0 on rank 1 is after that rank's frontier #0"), v);
    }

    @Test
    void halvesWithoutAMatchOrAtDifferentIndicesAreReported()
    {
        final CutRecording zero = new CutRecording(0);
        zero.transfer(true, 0, 1, "x", 1, 1, 0);
        zero.transfer(true, 0, 1, "y", 3, 4, 1);
        final CutRecording one = new CutRecording(1);
        one.transfer(false, 0, 1, "y", 3, 5, 0);
        final List<String> v = CutChecker.violations(List.of(zero, one), List.of(List.of(), List.of()));
        assertTrue(v.contains("the transfer of 'x' v1 from rank 0 to rank 1 has a send #0 on rank 0 but no receive"),
            v.toString());
        assertTrue(v.contains("the transfer of 'y' v3 from rank 0 to rank 1 was submitted at global index 4 on " +
            "rank 0 but 5 on rank 1"), v.toString());
    }

    /** Both ranks request the cut at global index 2 after the task at index 1, as DistributedSpillway does. */
    private static List<CutRecording> recordings()
    {
        final CutRecording zero = new CutRecording(0);
        zero.task(0, 0);
        zero.transfer(true, 0, 1, "x", 1, 1, 1);
        zero.cut(2, 2);
        final CutRecording one = new CutRecording(1);
        one.transfer(false, 0, 1, "x", 1, 1, 0);
        one.task(1, 1);
        one.cut(2, 2);
        return List.of(zero, one);
    }

    /** @return each rank's committed cuts at the frontiers it recorded. */
    private static List<List<Cut>> committed(final CutRecording... ranks)
    {
        return Arrays.stream(ranks).map(r -> r.frontiers().entrySet().stream()
            .map(e -> cut(e.getKey(), e.getValue())).toList()).toList();
    }

    private static Cut cut(final long globalIndex, final long frontier)
    {
        return new Cut(0, frontier, globalIndex, 0, 0);
    }
}
