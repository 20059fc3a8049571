package dev.spillway.ranks;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CommitLedgerTest
{
    private static final long NONE = Long.MIN_VALUE;

    @Test
    void anIndexIsCompleteOnceEveryRankCommittedIt()
    {
        final CommitLedger ledger = new CommitLedger(3);
        ledger.committed(0, 0, 100);
        ledger.committed(2, 0, 100);
        assertEquals(NONE, ledger.takeNewestComplete());
        ledger.committed(1, 0, 100);
        assertEquals(100, ledger.takeNewestComplete());
        assertEquals(NONE, ledger.takeNewestComplete(), "taken once");
    }

    @Test
    void commitsKeptWhileNothingIsTakenYieldTheNewestCompleteIndexLater()
    {
        // What a recovery's hold does: the notices arrive, the record waits, and the newest complete cut is taken.
        final CommitLedger ledger = new CommitLedger(2);
        for (final long index : new long[] {100, 200, 300})
        {
            ledger.committed(0, 0, index);
        }
        ledger.committed(1, 0, 100);
        ledger.committed(1, 0, 200);
        assertEquals(200, ledger.takeNewestComplete());
        ledger.committed(1, 0, 300);
        assertEquals(300, ledger.takeNewestComplete());
    }

    @Test
    void aRankSentBackLosesItsCommitsAndItsOldIncarnationIsIgnoredWhileItsNextCounts()
    {
        final CommitLedger ledger = new CommitLedger(2);
        ledger.committed(0, 0, 100);
        ledger.committed(1, 0, 100);
        ledger.sentBack(1, 0, 40);
        assertEquals(NONE, ledger.takeNewestComplete(), "rank 1 commits the cut again");
        assertFalse(ledger.committed(1, 0, 100), "a late notice from the incarnation sent back");
        assertEquals(NONE, ledger.takeNewestComplete());
        assertTrue(ledger.committed(1, 1, 100));
        assertEquals(100, ledger.takeNewestComplete());
    }

    @Test
    void sendingBackAnOldIncarnationKeepsTheCommitsOfItsSuccessor()
    {
        // A lost rank relaunched and committed before the recovery line that names its lost incarnation.
        final CommitLedger ledger = new CommitLedger(2);
        ledger.committed(0, 0, 100);
        ledger.committed(1, 1, 100);
        ledger.sentBack(1, 0, 40);
        assertEquals(100, ledger.takeNewestComplete());
    }

    @Test
    void aRankSentBackToACutKeepsItsCommitOfThatCutAndTheOlderOnes()
    {
        // Rank 1 resumes after the cut at 120: it never commits 120 again, so its commit must still count.
        final CommitLedger ledger = new CommitLedger(2);
        ledger.committed(1, 0, 80);
        ledger.committed(1, 0, 120);
        ledger.committed(1, 0, 160);
        ledger.sentBack(1, 0, 120);
        assertTrue(ledger.committed(1, 0, 120), "a late notice of the cut it restores counts");
        assertFalse(ledger.committed(1, 0, 160), "a late notice above it does not");
        ledger.committed(0, 0, 160);
        ledger.committed(0, 0, 120);
        assertEquals(120, ledger.takeNewestComplete());
    }

    @Test
    void aRankSentBackToItsStartLosesEveryCommit()
    {
        final CommitLedger ledger = new CommitLedger(2);
        ledger.committed(0, 0, 40);
        ledger.committed(1, 0, 40);
        ledger.sentBack(1, 0, -1);
        assertEquals(NONE, ledger.takeNewestComplete());
    }
}
