package dev.spillway.cli;

import dev.spillway.kernels.blas.JavaBlas;
import dev.spillway.kernels.dense.Lu;
import dev.spillway.memory.ByteUnits;
import dev.spillway.resilience.buddy.BuddyCheckpoints;
import org.junit.jupiter.api.Test;

import java.util.function.IntToLongFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The buddy copy's buffers are charged to a rank's --dram budget: the check counts them and names them. */
class DramCheckTest
{
    private static final IntToLongFunction PAGES = size -> (size + 4095L) & -4096L;
    private static final Lu LU = new Lu(512, 64, false, new JavaBlas());

    @Test
    void aBudgetThatCannotAlsoHoldTheBuddyBuffersIsRefusedNamingThem()
    {
        final String problem = check(2L << 20, BuddyCheckpoints.DRAM_BYTES).problem(PAGES);
        assertTrue(problem != null && problem.contains("plus " + ByteUnits.format(BuddyCheckpoints.DRAM_BYTES) +
            " for the buddy copy's buffers"), problem);
        final long suggested = Long.parseLong(problem.replaceAll(".*use --dram (\\d+)k or more.*", "$1")) << 10;
        assertTrue(suggested >= BuddyCheckpoints.DRAM_BYTES, problem);
        assertTrue(!problem.contains("--tile"), "a smaller tile cannot make room for the buffers: " + problem);
        assertNull(check(suggested, BuddyCheckpoints.DRAM_BYTES).problem(PAGES), "the suggestion runs");
        assertEquals(suggested, check(2L << 20, BuddyCheckpoints.DRAM_BYTES).need(PAGES) + 1023 >> 10 << 10);
    }

    @Test
    void withoutABuddyTheSameBudgetSuffices()
    {
        assertNull(check(2L << 20, 0).problem(PAGES));
        final String tooSmall = check(64L << 10, 0).problem(PAGES);
        assertTrue(tooSmall != null && !tooSmall.contains("buddy") && tooSmall.contains("(or a smaller --tile)"),
            tooSmall);
        final String roomForTheBuffers = check(BuddyCheckpoints.DRAM_BYTES + (64L << 10), BuddyCheckpoints.DRAM_BYTES)
            .problem(PAGES);
        assertTrue(roomForTheBuffers != null && roomForTheBuffers.contains("(or a smaller --tile)"), roomForTheBuffers);
    }

    /** As {@code run} builds it: the engine's budget is what --dram gives less what the run holds beside it. */
    private static DramCheck check(final long dram, final long reserved)
    {
        return new DramCheck(LU, new DramSize(dram, Double.NaN), LU.dataBytes() / 2, Math.max(dram - reserved, 4096),
            2, reserved);
    }
}
