package dev.spillway.resilience.p2f;

import dev.spillway.ranks.RankProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The hellos between a rank that started again and a peer that ran on: what the peer holds is never sent to it
 * again, including transfers that landed ahead of one it still waits for (it posts no receive for them again).
 */
class P2fProtocolGreetingTest
{
    private static final EpochPlan PLAN = EpochPlan.aligned(2, 1, 40);

    @Test
    void aTransferThePeerHoldsAheadOfAMissingOneIsNeitherSentAgainNorReplayed(@TempDir final Path dir)
        throws IOException
    {
        final P2fProtocol sender = new P2fProtocol(0, 2, PLAN, P2fOptions.DEFAULTS, ReplayCopies.in(dir.resolve("0")));
        final P2fProtocol receiver = new P2fProtocol(1, 2, PLAN, P2fOptions.DEFAULTS, ReplayCopies.in(dir.resolve("1")));
        final RankProtocol.Stamp[] sent = new RankProtocol.Stamp[3];
        for (int i = 0; i < sent.length; i++)
        {
            sent[i] = sender.sending(1, "x" + i, 1, 8);
            assertEquals(i, receiver.receiving(0));
        }
        assertEquals(List.of(new RankProtocol.Ack(0, sent[0].epoch())), receiver.received(0, sent[0]));
        assertEquals(List.of(), receiver.received(0, sent[2]), "transfer 2 landed ahead of transfer 1");

        // The sender dies before transfer 1 went out and starts again from the beginning.
        final P2fProtocol restarted = new P2fProtocol(0, 2, PLAN, P2fOptions.DEFAULTS, ReplayCopies.in(dir.resolve("0")));
        final List<RankProtocol.Replay> replays = restarted.greeted(1, receiver.hello(0));
        assertEquals(List.of(), replays, "a rank started from the beginning has nothing to send again");
        for (int i = 0; i < sent.length; i++)
        {
            assertEquals(sent[i], restarted.sending(1, "x" + i, 1, 8));
        }
        assertTrue(restarted.suppressed(1, 0), "transfer 0 was accepted");
        assertFalse(restarted.suppressed(1, 1), "transfer 1 never came: it goes again");
        assertTrue(restarted.suppressed(1, 2), "transfer 2 is held ahead of transfer 1: sent again, it would find " +
            "no receive");

        final List<RankProtocol.Ack> acks = receiver.received(0, sent[1]);
        assertEquals(List.of(new RankProtocol.Ack(1, sent[1].epoch()), new RankProtocol.Ack(2, sent[2].epoch())), acks,
            "transfer 1 lets transfer 2 be taken: both are acknowledged");
        acks.forEach(a -> restarted.acked(1, a));
        assertEquals(3, restarted.figures().dependencies(), "every transfer is acknowledged once: transfer 0 at the " +
            "greeting, transfers 1 and 2 by the receiver");
    }
}
