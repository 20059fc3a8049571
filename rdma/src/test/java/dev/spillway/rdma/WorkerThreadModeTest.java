package dev.spillway.rdma;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Callers' puts need a thread-safe worker: the check reads UCX's own answer, so a single-threaded one is refused. */
class WorkerThreadModeTest
{
    @BeforeAll
    static void ucx()
    {
        Ucx.requireUcx();
    }

    @Test
    void aThreadSafeWorkerPassesAndASingleThreadedOneIsRefusedNamingItsMode()
    {
        try (UcpContext context = new UcpContext(new UcpParams().requestRmaFeature().setConfig("NET_DEVICES", "lo"));
            UcpWorker safe = context.newWorker(new UcpWorkerParams().requestThreadSafety());
            UcpWorker single = context.newWorker(new UcpWorkerParams()))
        {
            assertDoesNotThrow(() -> WorkerThreadMode.requireMulti(safe));
            final TransportException e = assertThrows(TransportException.class,
                () -> WorkerThreadMode.requireMulti(single));
            assertTrue(e.getMessage().contains("single-threaded"), e.getMessage());
        }
    }
}
