package dev.spillway.cli;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The StarPU peer's output parsing: a time only from a run that printed one, and a GEMM only if its check passed. */
class StarpuPeerTest
{
    private static final Path LOG = Path.of("peer.log");

    @Test
    void gemmTakesTheComputeTimeOfACheckedRun()
    {
        final StarpuPeer.Result r = StarpuPeer.parse("matmul", "IO after_compute proc_read_bytes=1\n" +
            "RESULT kernel=dgemm n=2048 b=512 data_mib=96 limit_mib=16 backend=unistd_o_direct sched=lws(default) " +
            "starpu_init_s=0.447 init_tasks_s=0.298 compute_s=1.958 gflops=8.77 total_s=2.780 check=ok\n", LOG);
        assertTrue(r.ok() && r.checked(), r.toString());
        assertEquals(1.958, r.timeS());
    }

    @Test
    void aGemmWhoseCheckFailedOrThatPrintedNoResultFails()
    {
        final StarpuPeer.Result wrong = StarpuPeer.parse("matmul", "RESULT kernel=dgemm compute_s=1.5 gflops=1 " +
            "check=FAILED\n", LOG);
        assertFalse(wrong.ok());
        assertTrue(wrong.failure().contains("FAILED") && wrong.failure().contains("peer.log"), wrong.failure());
        assertFalse(StarpuPeer.parse("matmul", "Segmentation fault\n", LOG).ok());
    }

    @Test
    void luTakesTheStockExamplesComputationTimeUnchecked()
    {
        final StarpuPeer.Result r = StarpuPeer.parse("lu", "32MB on disk\nComputation took: 817.092334 ms\n" +
            "Synthetic GFlops : 7.01\n", LOG);
        assertTrue(r.ok() && !r.checked(), r.toString());
        assertEquals(0.817092334, r.timeS(), 1e-12);
    }
}
