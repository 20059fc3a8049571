package dev.spillway.resilience.redundancy;

import dev.spillway.resilience.redundancy.DigestVote.Kind;
import dev.spillway.resilience.redundancy.DigestVote.Verdict;
import dev.spillway.resilience.store.GenerationDigest;
import dev.spillway.resilience.store.GenerationDigest.ObjectState;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two replicas verify or roll back; three or more outvote a minority and name what it must fetch. */
class DigestVoteTest
{
    private static final long CUT = 80;

    /** Objects a, b, c at version 1, with checksums 11, 12, 13 unless {@code changed} (tag to checksum). */
    private static GenerationDigest digest(final Map<String, Long> changed)
    {
        final Map<String, ObjectState> objects = new TreeMap<>();
        long crc = 11;
        for (final String tag : new String[] {"a", "b", "c"})
        {
            objects.put(tag, new ObjectState(1, changed.getOrDefault(tag, crc++)));
        }
        return GenerationDigest.of(CUT, objects);
    }

    private static final GenerationDigest CLEAN = digest(Map.of());

    @Test
    void equalDigestsVerifyAndOneReplicaIsUnchecked()
    {
        assertEquals(Kind.VERIFIED, DigestVote.decide(0, Map.of(0, CLEAN, 4, digest(Map.of()))).kind());
        assertEquals(Kind.VERIFIED, DigestVote.decide(0, Map.of(0, CLEAN, 4, CLEAN, 5, CLEAN)).kind());
        final Verdict alone = DigestVote.decide(3, Map.of(7, CLEAN));
        assertEquals(Kind.UNCHECKED, alone.kind());
        assertTrue(alone.reason().contains("rank 3, cut 80"), alone.reason());
    }

    @Test
    void twoReplicasThatDifferRollBack()
    {
        final Verdict v = DigestVote.decide(1, Map.of(2, CLEAN, 6, digest(Map.of("b", 99L))));
        assertEquals(Kind.ROLL_BACK, v.kind());
        assertEquals(Set.of(), v.minority());
        assertTrue(v.reason().contains("[[2], [6]]") && v.reason().contains("no majority"), v.reason());
    }

    @Test
    void threeReplicasOutvoteTheOddOneAndNameItsObjects()
    {
        final Verdict v = DigestVote.decide(0, Map.of(0, CLEAN, 3, digest(Map.of("a", 5L, "c", 6L)), 6, CLEAN));
        assertEquals(Kind.OUTVOTED, v.kind());
        assertEquals(Set.of(3), v.minority());
        assertEquals(Map.of(3, Set.of("a", "c")), v.objects());
    }

    @Test
    void threeDistinctDigestsHaveNoMajority()
    {
        final Verdict v = DigestVote.decide(0, Map.of(0, CLEAN, 3, digest(Map.of("a", 5L)), 6,
            digest(Map.of("a", 6L))));
        assertEquals(Kind.ROLL_BACK, v.kind());
    }

    @Test
    void digestsOfDifferentCutsOrNoneAreRefused()
    {
        final GenerationDigest other = GenerationDigest.of(CUT + 40, CLEAN.objects());
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> DigestVote.decide(2, new TreeMap<>(Map.of(0, CLEAN, 1, other))));
        assertTrue(e.getMessage().contains("replica 1 digested cut 120, not 80"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> DigestVote.decide(2, Map.of()));
    }
}
