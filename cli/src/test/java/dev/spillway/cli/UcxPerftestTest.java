package dev.spillway.cli;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Reading ucx_perftest's and UCX's output, and the bench's sizes (no process is started). */
class UcxPerftestTest
{
    private static final String CLIENT = String.join("\n",
        "[1795311270.497933] [vm:11338:0]     ucp_context.c:1849 UCX  INFO  Version 1.13.1 (loaded from " +
            "/lib/x86_64-linux-gnu/libucp.so.0)",
        "+--------------+--------------+------------------------------+---------------------+-----------------------+",
        "|    Stage     | # iterations | 50.0%ile | average | overall |  average |  overall |  average  |  overall  |",
        "[1795311270.503898] [vm:11338:0]      ucp_worker.c:1763 UCX  INFO    ep_cfg[0]: rma(sysv/memory " +
            "posix/memory)",
        "                         256     29.749    31.195    31.195    32056.78   32056.78       32057       32057",
        "");

    @Test
    void parsesTheFinalRowAndTheLanes()
    {
        final UcxPerftest.Result r = UcxPerftest.parse(CLIENT);
        assertEquals(31.195, r.overheadUs(), 1e-9);
        assertEquals(32056.78, r.mibPerSecond(), 1e-9);
        assertEquals("rma(sysv/memory posix/memory)", r.rmaLanes());
        assertEquals("1.13.1", UcxPerftest.version(CLIENT));
    }

    @Test
    void noFiguresIsNull()
    {
        assertNull(UcxPerftest.parse("Waiting for connection...\nAccepted connection from 127.0.0.1:53376\n"));
    }

    @Test
    void skipsTheEndpointToItselfAndReadsEmulatedLanes()
    {
        final String jvm = String.join("\n",
            "[1] [vm:1:0] ucp_worker.c:1763 UCX  INFO    ep_cfg[0]: tag(self/memory0 cma/memory) rma(self/memory0 " +
                "sysv/memory posix/memory)",
            "[1] [vm:1:0] ucp_worker.c:1763 UCX  INFO    ep_cfg[1]: tag(sysv/memory cma/memory) rma(sysv/memory " +
                "posix/memory)");
        assertEquals("rma(sysv/memory posix/memory)", UcxPerftest.rmaLanes(jvm));
        assertEquals("rma_am(tcp/lo)", UcxPerftest.rmaLanes(
            "[1] [vm:1:0] ucp_worker.c:1763 UCX  INFO    ep_cfg[0]: tag(tcp/lo) rma_am(tcp/lo) ka(tcp/lo)"));
        assertNull(UcxPerftest.rmaLanes("no endpoint here"));
        assertNull(UcxPerftest.version("no version here"));
    }

    @Test
    void sizesArePowersOfTwoEndingAtTheLargest()
    {
        assertEquals(List.of(8, 16, 32, 64), RdmaBench.sizes(64));
        assertEquals(List.of(8, 16, 32, 64, 100), RdmaBench.sizes(100));
        assertEquals(List.of(8), RdmaBench.sizes(8));
        assertThrows(IllegalArgumentException.class, () -> RdmaBench.sizes(7));
    }
}
