package dev.spillway.resilience.redundancy;

import dev.spillway.rdma.Header;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The last comparison of a replicated run: each sphere compares its replicas' result checksums. */
class ReplicaResultsTest
{
    @Test
    void aSphereNamesTheReplicaWhoseResultDiffersAndItsMajorityRunsOn() throws Exception
    {
        // 3x over two ranks: rank 0 on slots 0, 1 and 2, rank 1 on 3, 4 and 5; slot 1's result differs.
        final Map<Integer, ReplicaResults.Outcome> outcomes = new ConcurrentHashMap<>();
        final ReplicatedJob job = ReplicatedJob.run(RedundancyPlan.of(2, RedundancyDegree.parse("3")),
            Duration.ofSeconds(300), (transport, exits) -> outcomes.put(transport.slot(),
                ReplicaResults.compare(transport, transport.slot() == 1 ? "bad" : "r" + transport.rank())));
        assertTrue(job.failed.isEmpty(), job.failed.toString());
        for (final int slot : new int[] {0, 2})
        {
            assertTrue(outcomes.get(slot).agrees(), "slot " + slot + " is in the majority");
            assertEquals("the replicas of rank 0 computed different results, checksums by slot {0=r0, 1=bad, 2=r0}" +
                ": this replica (slot " + slot + ") is in the majority", outcomes.get(slot).difference());
        }
        assertFalse(outcomes.get(1).agrees());
        assertTrue(outcomes.get(1).difference().endsWith("no majority includes this replica (slot 1)"),
            outcomes.get(1).difference());
        for (final int slot : new int[] {3, 4, 5})
        {
            assertTrue(outcomes.get(slot).agrees());
            assertNull(outcomes.get(slot).difference());
        }
        assertEquals(List.of(0, 3), reporters(outcomes), "the first replica of each sphere's majority reports");
    }

    @Test
    void theFirstLiveReplicaInTheMajorityReportsWhenSlotZeroIsOutvotedOrLost() throws Exception
    {
        final Map<Integer, ReplicaResults.Outcome> outvoted = new ConcurrentHashMap<>();
        ReplicatedJob.run(RedundancyPlan.of(1, RedundancyDegree.parse("3")), Duration.ofSeconds(300),
            (transport, exits) -> outvoted.put(transport.slot(), ReplicaResults.compare(transport,
                transport.slot() == 0 ? "bad" : "r")));
        assertEquals(List.of(1), reporters(outvoted));

        final Map<Integer, ReplicaResults.Outcome> lost = new ConcurrentHashMap<>();
        final ReplicatedJob job = ReplicatedJob.run(RedundancyPlan.of(1, RedundancyDegree.parse("2")),
            Duration.ofSeconds(300), (transport, exits) ->
            {
                if (transport.slot() == 0)
                {
                    exits.run();
                    return;
                }
                lost.put(transport.slot(), ReplicaResults.compare(transport, "r"));
            });
        assertTrue(job.failed.isEmpty(), job.failed.toString());
        assertEquals(List.of(1), reporters(lost), "slot 1 compares with nobody and reports");
        assertNull(lost.get(1).difference());
    }

    private static List<Integer> reporters(final Map<Integer, ReplicaResults.Outcome> outcomes)
    {
        return outcomes.entrySet().stream().filter(e -> e.getValue().reports()).map(Map.Entry::getKey).sorted()
            .toList();
    }

    @Test
    void aDigestRoundLeftInFlightAtTheEndOfTheRunIsNotTakenForAResult() throws Exception
    {
        // Slot 1's digest thread sent its half of a round on the last cut; slot 0's closed before taking it.
        final Map<Integer, ReplicaResults.Outcome> outcomes = new ConcurrentHashMap<>();
        final ReplicatedJob job = ReplicatedJob.run(RedundancyPlan.of(1, RedundancyDegree.parse("2")),
            Duration.ofSeconds(60), (ReplicatedJob.PhysicalSlot)(transport, physical, exits) ->
            {
                if (transport.slot() == 1)
                {
                    final byte[] digest = "a digest".getBytes(StandardCharsets.UTF_8);
                    final Header partner = Header.of(ReplicatedTransport.PARTNER_TAG);
                    physical.send(0, partner, ByteBuffer.allocateDirect(Long.BYTES).putLong(0, digest.length));
                    physical.send(0, partner, ByteBuffer.allocateDirect(digest.length).put(0, digest));
                }
                outcomes.put(transport.slot(), ReplicaResults.compare(transport, "r"));
            });
        assertTrue(job.failed.isEmpty(), job.failed.toString());
        for (final int slot : new int[] {0, 1})
        {
            assertNull(outcomes.get(slot).difference(), "slot " + slot + ": " + outcomes.get(slot).difference());
        }
    }

    @Test
    void twoReplicasThatDifferHaveNoMajority() throws Exception
    {
        final Map<Integer, ReplicaResults.Outcome> outcomes = new ConcurrentHashMap<>();
        ReplicatedJob.run(RedundancyPlan.of(1, RedundancyDegree.parse("2")), Duration.ofSeconds(300),
            (transport, exits) -> outcomes.put(transport.slot(), ReplicaResults.compare(transport,
                "r" + transport.slot())));
        assertFalse(outcomes.get(0).agrees());
        assertFalse(outcomes.get(1).agrees());
    }
}
