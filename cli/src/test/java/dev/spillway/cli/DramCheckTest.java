package dev.spillway.cli;

import dev.spillway.kernels.blas.JavaBlas;
import dev.spillway.kernels.dense.Lu;
import dev.spillway.memory.ByteUnits;
import dev.spillway.resilience.buddy.BuddyCheckpoints;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.function.IntToLongFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The buddy copy's buffers are charged to a rank's --dram budget: the check counts them and names them. */
class DramCheckTest
{
    private static final IntToLongFunction PAGES = size -> (size + 4095L) & -4096L;
    private static final Lu LU = new Lu(512, 64, false, new JavaBlas());

    @ParameterizedTest
    @EnumSource(BuddyCheckpoints.Stream.class)
    void aBudgetThatCannotAlsoHoldTheBuddyBuffersIsRefusedNamingThem(final BuddyCheckpoints.Stream stream)
    {
        final long buffers = BuddyCheckpoints.dramBytes(stream);
        final String problem = check(2L << 20, buffers).problem(PAGES);
        assertTrue(problem != null && problem.contains("plus " + ByteUnits.format(buffers) +
            " for the buddy copy's buffers"), problem);
        final long suggested = Long.parseLong(problem.replaceAll(".*use --dram (\\d+)k or more.*", "$1")) << 10;
        assertTrue(suggested >= buffers, problem);
        assertTrue(!problem.contains("--tile"), "a smaller tile cannot make room for the buffers: " + problem);
        assertNull(check(suggested, buffers).problem(PAGES), "the suggestion runs");
        assertEquals(suggested, check(2L << 20, buffers).need(PAGES) + 1023 >> 10 << 10);
    }

    @Test
    void withoutABuddyTheSameBudgetSuffices()
    {
        final long buffers = BuddyCheckpoints.dramBytes(BuddyCheckpoints.Stream.MESSAGES);
        assertNull(check(2L << 20, 0).problem(PAGES));
        final String tooSmall = check(64L << 10, 0).problem(PAGES);
        assertTrue(tooSmall != null && !tooSmall.contains("buddy") && tooSmall.contains("(or a smaller --tile)"),
            tooSmall);
        final String roomForTheBuffers = check(buffers + (64L << 10), buffers).problem(PAGES);
        assertTrue(roomForTheBuffers != null && roomForTheBuffers.contains("(or a smaller --tile)"), roomForTheBuffers);
    }

    /** As {@code run} builds it: the engine's budget is what --dram gives less what the run holds beside it. */
    private static DramCheck check(final long dram, final long reserved)
    {
        return new DramCheck(LU, new DramSize(dram, Double.NaN), LU.dataBytes() / 2, Math.max(dram - reserved, 4096),
            2, reserved);
    }
}
