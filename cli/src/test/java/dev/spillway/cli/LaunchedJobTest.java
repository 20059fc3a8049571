package dev.spillway.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the launcher passes on of its ranks' output. */
class LaunchedJobTest
{
    /** Issue 18, defect 11: a lost rank 0 made each survivor print UCX's request error once per failed request. */
    @Test
    void ucxRequestErrorsAreDroppedAndTheRanksOwnLinesKept()
    {
        assertFalse(LaunchedJob.shown("[1717171717.123456] [host:4242 :0]    jucx_common_def.cc:300  UCX  ERROR " +
            "JUCX: request error: Connection reset by remote peer"));
        assertTrue(LaunchedJob.shown("spillway: rank 1 stopped for a restart: rank 0 is lost (UCX reported " +
            "Connection reset by remote peer (status -25))"));
        assertTrue(LaunchedJob.shown("[1717171717.123456] [host:4242 :0]    ucp_worker.c:1783 UCX  ERROR " +
            "failed to open device lo"), "other UCX errors are shown");
    }
}
