package dev.spillway.rdma;

import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rate limit of the coordinator's refusal log, on a clock the test turns. */
final class RejectionLogTest
{
    private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.1", 4711);

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final List<String> lines = new ArrayList<>();
    private final RejectionLog log = new RejectionLog("coordinator (rank 0)", clock::get, lines::add);

    @Test
    void theFirstRefusalsGetALineEachTheRestOneSummary()
    {
        for (int i = 0; i < RejectionLog.VERBATIM_LINES; i++)
        {
            log.rejected(PEER, RejectionLog.Cause.CLOSED, "closed before the handshake");
        }
        assertEquals(RejectionLog.VERBATIM_LINES, lines.size());
        assertEquals("spillway-rdma: coordinator (rank 0) rejected connection from " + PEER +
            ": closed before the handshake", lines.get(0));
        for (int i = 0; i < 1000; i++)
        {
            log.rejected(PEER, i % 3 == 0 ? RejectionLog.Cause.NOT_AUTHENTICATED : RejectionLog.Cause.CLOSED, "x");
        }
        clock.addAndGet(3_000_000_000L);
        log.flush();
        assertEquals(RejectionLog.VERBATIM_LINES + 1, lines.size(), String.join("\n", lines));
        assertEquals("spillway-rdma: coordinator (rank 0) rejected 1000 more connections in the last 3 s: " +
            "666 closed before completing the handshake, 334 failed authentication", lines.get(lines.size() - 1));
        log.flush();
        assertEquals(RejectionLog.VERBATIM_LINES + 1, lines.size(), "a second flush has nothing to add");
    }

    @Test
    void eachIntervalSumsUpTheLastAndLogsItsFirstRefusalsAgain()
    {
        for (int i = 0; i < RejectionLog.VERBATIM_LINES + 2; i++)
        {
            log.rejected(PEER, RejectionLog.Cause.OVER_CAP, "16 connections are already in their handshake");
        }
        clock.addAndGet(RejectionLog.INTERVAL.toNanos());
        log.rejected(PEER, RejectionLog.Cause.TIMED_OUT, "no handshake and address within 5000 ms");
        assertEquals(List.of(
            "spillway-rdma: coordinator (rank 0) rejected 2 more connections in the last 10 s: 2 over the cap of " +
                "pending handshakes",
            "spillway-rdma: coordinator (rank 0) rejected connection from " + PEER +
                ": no handshake and address within 5000 ms"),
            lines.subList(RejectionLog.VERBATIM_LINES, lines.size()));
    }

    @Test
    void aRefusalWithoutDetailIsNamedByItsCause()
    {
        log.rejected(PEER, RejectionLog.Cause.FAILED, null);
        log.rejected(PEER, RejectionLog.Cause.CLOSED, " ");
        assertEquals(List.of(
            "spillway-rdma: coordinator (rank 0) rejected connection from " + PEER + ": failed otherwise",
            "spillway-rdma: coordinator (rank 0) rejected connection from " + PEER +
                ": closed before completing the handshake"), lines);
        assertTrue(lines.stream().noneMatch(l -> l.contains("null")), lines.toString());
    }

    @Test
    void connectionsCutShortByTheCoordinatorsCloseAreCounted()
    {
        log.abandoned(0);
        assertEquals(List.of(), lines);
        log.abandoned(1);
        log.abandoned(3);
        assertEquals(List.of(
            "spillway-rdma: coordinator (rank 0) closed 1 connection still in the handshake when it stopped listening",
            "spillway-rdma: coordinator (rank 0) closed 3 connections still in the handshake when it stopped " +
                "listening"), lines);
    }
}
