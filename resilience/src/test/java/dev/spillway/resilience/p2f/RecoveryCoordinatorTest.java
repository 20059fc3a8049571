package dev.spillway.resilience.p2f;

import dev.spillway.ranks.RankProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The recovery line rank 0 computes in a session, on four ranks in four clusters cutting every 10 submissions:
 * rank r starts in epoch 1 + 2r, and after the cut at global index 10k it is in epoch 1 + 2r + k.
 */
class RecoveryCoordinatorTest
{
    private static final long K = RankProtocol.KEEPS_RUNNING;
    private static final EpochPlan PLAN = EpochPlan.aligned(4, 4, 10);
    private final RecoveryCoordinator coordinator = new RecoveryCoordinator(PLAN, 4);

    private static RecoveryReport report(final int rank, final SentPerEpoch depends, final Integer... committed)
    {
        return new RecoveryReport(rank, depends, new TreeSet<>(Arrays.asList(committed)));
    }

    private static int epoch(final int rank, final long cut)
    {
        return PLAN.epochAfterCut(rank, cut);
    }

    @Test
    void onlyTheSendersOfUnloggedTransfersToALostRankRollBack()
    {
        // Rank 1 restores the cut at 20. Rank 2 sent it, after that cut, a transfer it took after the cut too (a
        // higher cluster to a lower one: not logged). Rank 0's transfers to rank 1 go up a cluster: logged.
        final Map<Integer, RecoveryReport> reports = Map.of(
            0, report(0, SentPerEpoch.none(), epoch(0, -1), epoch(0, 20)),
            2, report(2, SentPerEpoch.builder().add(1, epoch(2, 20), epoch(1, 20)).build(), epoch(2, -1), epoch(2, 20)),
            3, report(3, SentPerEpoch.none(), epoch(3, -1), epoch(3, 20)));
        assertArrayEquals(new long[] {K, 20, 20, K}, coordinator.line(Map.of(1, 20L), reports),
            "rank 3 sent nothing the line undoes: under the cluster rule it would have rolled back too");
    }

    @Test
    void theLinePropagatesAndRoundsDownToCommittedGenerations()
    {
        // Rank 2 committed the cut at 30 alone (the line may send it there); its transfer to rank 1 went after it.
        // Rank 3 sent rank 2 a transfer after the cut at 20 that rank 2 took after its cut at 30.
        final Map<Integer, RecoveryReport> reports = Map.of(
            0, report(0, SentPerEpoch.none(), epoch(0, -1), epoch(0, 20)),
            2, report(2, SentPerEpoch.builder().add(1, epoch(2, 30), epoch(1, 20)).build(), epoch(2, -1),
                epoch(2, 20), epoch(2, 30)),
            3, report(3, SentPerEpoch.builder().add(2, epoch(3, 20), epoch(2, 30)).build(), epoch(3, -1),
                epoch(3, 20)));
        assertArrayEquals(new long[] {K, 20, 30, 20}, coordinator.line(Map.of(1, 20L), reports));
    }

    @Test
    void aLostRankWithoutAGlobalCutRestartsFromItsStart()
    {
        final Map<Integer, RecoveryReport> reports = Map.of(
            0, report(0, SentPerEpoch.none(), epoch(0, -1)),
            1, report(1, SentPerEpoch.none(), epoch(1, -1)),
            2, report(2, SentPerEpoch.builder().add(3, epoch(2, -1), epoch(3, -1)).build(), epoch(2, -1)));
        assertArrayEquals(new long[] {K, K, -1, -1}, coordinator.line(Map.of(3, -1L), reports));
    }

    @Test
    void everyRankIsLostOrReported()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> coordinator.line(
            Map.of(1, 20L), Map.of(0, report(0, SentPerEpoch.none(), 1))));
        assertTrue(e.getMessage().contains("rank 2 must be either lost or reported"), e.getMessage());
    }

    @Test
    void reportsSurviveTheWireAndTruncationIsNamed()
    {
        final RecoveryReport report = report(2, SentPerEpoch.builder().add(1, 7, 5).add(0, 6, 1).build(), 5, 7);
        final RecoveryReport back = RecoveryReport.decode(report.encode());
        assertEquals(report.committed(), back.committed());
        assertEquals(7, back.depends().earliestSendUndoneBy(1, 5));
        assertEquals(6, back.depends().earliestSendUndoneBy(0, 1));
        final byte[] cut = Arrays.copyOf(report.encode(), report.encode().length - 3);
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> RecoveryReport.decode(cut));
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
    }

    @Test
    void aRankReportsItsPostedUnacknowledgedUnloggedSendsAsDependencies(@TempDir final Path dir) throws IOException
    {
        final P2fProtocol rank2 = new P2fProtocol(2, 4, PLAN, P2fOptions.DEFAULTS, ReplayCopies.in(dir));
        final long down = rank2.sending(1, "a", 1, 8).ssn();
        rank2.sending(1, "b", 1, 8);
        final long up = rank2.sending(3, "c", 1, 8).ssn();
        rank2.posting(1, down);
        rank2.posting(3, up);
        final RecoveryReport report = RecoveryReport.decode(rank2.recoveryReport(1));
        assertEquals(epoch(2, -1), report.depends().earliestSendUndoneBy(1, epoch(1, -1)),
            "posted, not acknowledged, not captured: only a re-execution can send it again");
        assertEquals(Integer.MAX_VALUE, report.depends().earliestSendUndoneBy(3, epoch(3, -1)),
            "a transfer to a higher cluster is captured at its send and sent again from the copy");
        assertEquals(List.of(epoch(2, -1)), List.copyOf(report.committed()));
        rank2.cutCommitted(10);
        assertEquals(List.of(epoch(2, -1), epoch(2, 10)), List.copyOf(RecoveryReport.decode(rank2.recoveryReport(1))
            .committed()));
    }
}
