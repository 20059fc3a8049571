package dev.spillway.memory;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BudgetAndPoolTest
{
    @Test
    void poolNeverExceedsTheBudgetAndFreesIdleBuffersOfOtherSizes()
    {
        final DramBudget budget = new DramBudget(3 * 4096);
        final BufferPool pool = new BufferPool(budget, 4096);
        final TileBuffer a = pool.acquire(4096);
        final TileBuffer b = pool.acquire(100);
        assertEquals(4096, b.capacity(), "sizes round up to the alignment");
        assertEquals(0, b.buffer().alignmentOffset(0, 4096), "buffers are aligned");
        assertNull(pool.acquire(8192), "no room for two more pages");
        pool.release(b);
        assertEquals(4096, pool.idleBytes());
        final TileBuffer c = pool.acquire(8192);
        assertNotNull(c, "the idle one-page buffer is freed to make room");
        assertEquals(0, pool.idleBytes());
        assertEquals(3 * 4096, budget.physical());
        pool.release(a);
        pool.release(c);
        pool.close();
        assertEquals(0, budget.physical());
        assertTrue(budget.peakPhysical() <= budget.capacity());
    }

    @Test
    void onLinuxTilesAreExactMmapPages()
    {
        if (com.sun.jna.Platform.isLinux())
        {
            assertTrue(PageMemory.AVAILABLE, "anonymous mmap through JNA must work on Linux");
        }
        final DramBudget budget = new DramBudget(1 << 20);
        final BufferPool pool = new BufferPool(budget, 4096);
        final TileBuffer t = pool.acquire(10_000);
        assertEquals(12288, t.capacity());
        assertEquals(PageMemory.AVAILABLE ? 12288 : 12288 + 4096, budget.physical(), "the budget charges what is mapped");
        t.buffer().putLong(12280, 42);
        assertEquals(42, t.buffer().getLong(12280));
        pool.release(t);
        pool.close();
        assertEquals(0, budget.physical());
    }

    @Test
    void availableCountsInFlightReleases()
    {
        final DramBudget budget = new DramBudget(100);
        budget.commit(100);
        assertEquals(0, budget.available());
        budget.startRelease(40);
        assertEquals(40, budget.available());
        budget.endRelease(40, true);
        assertEquals(40, budget.available());
        budget.startRelease(10);
        budget.endRelease(10, false);
        assertEquals(40, budget.available(), "a cancelled release gives nothing back");
        assertThrows(IllegalArgumentException.class, () -> new DramBudget(0));
        assertThrows(IllegalArgumentException.class, () -> budget.chargeStaging(1000));
    }
}
