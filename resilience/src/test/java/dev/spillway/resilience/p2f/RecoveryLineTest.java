package dev.spillway.resilience.p2f;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RecoveryLineTest
{
    private static final int NONE = RecoveryLine.NONE;

    /** Rank 0 sent rank 1 a non-logged transfer in epoch 4 that rank 1 received in epoch 3; rank 1 sent rank 2 one. */
    private static List<SentPerEpoch> chain()
    {
        return List.of(table(1, 4, 3), table(2, 3, 3), SentPerEpoch.none());
    }

    private static SentPerEpoch table(final int target, final int sendEpoch, final int receiveEpoch)
    {
        final NavigableMap<Integer, Integer> epochs = new TreeMap<>(Map.of(sendEpoch, receiveEpoch));
        return new SentPerEpoch(Map.of(target, epochs));
    }

    @Test
    void propagatesAlongDependencies()
    {
        final List<TreeSet<Integer>> committed = List.of(new TreeSet<>(List.of(1, 2, 3, 4)),
            new TreeSet<>(List.of(1, 2, 3)), new TreeSet<>(List.of(1, 2, 3)));
        assertArrayEquals(new int[] {4, 3, 3}, RecoveryLine.compute(new int[] {NONE, NONE, 3}, chain(), committed));
        assertArrayEquals(new int[] {NONE, NONE, 4}, RecoveryLine.compute(new int[] {NONE, NONE, 4}, chain(), committed),
            "a restart after the receptions undoes none of them");
    }

    @Test
    void aGenerationStillInFlightRoundsDownToTheNewestCommittedOne()
    {
        final List<TreeSet<Integer>> committed = List.of(new TreeSet<>(List.of(1, 2, 3)),
            new TreeSet<>(List.of(1, 2, 3)), new TreeSet<>(List.of(1, 2, 3)));
        assertArrayEquals(new int[] {3, 3, 3}, RecoveryLine.compute(new int[] {NONE, NONE, 3}, chain(), committed));
    }

    @Test
    void aGenerationCollectedTooEarlyFailsLoudly()
    {
        final List<TreeSet<Integer>> committed = List.of(new TreeSet<>(List.of(5)), new TreeSet<>(List.of(3)),
            new TreeSet<>(List.of(3)));
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> RecoveryLine.compute(new int[] {NONE, NONE, 3}, chain(), committed));
        assertTrue(e.getMessage().contains("rank 0 must restart at or before epoch 4"), e.getMessage());
    }
}
