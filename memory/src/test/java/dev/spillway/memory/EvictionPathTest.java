package dev.spillway.memory;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EvictionPathTest
{
    private static final int SIZE = 10_000;

    private static final class Use implements FutureUse
    {
        private final long seq;
        private final int priority;
        boolean admitted;

        Use(final long seq)
        {
            this(seq, 0);
        }

        Use(final long seq, final int priority)
        {
            this.seq = seq;
            this.priority = priority;
        }

        @Override
        public int priority()
        {
            return priority;
        }

        @Override
        public long seq()
        {
            return seq;
        }

        @Override
        public boolean admitted()
        {
            return admitted;
        }
    }

    @Test
    void victimsAreCleanFirstThenFarthestNextUseThenLeastRecentlyUsed()
    {
        final ResidentObjects resident = new ResidentObjects(true, false);
        final DataObject soon = resident(resident, "soon", false, 1);
        final DataObject later = resident(resident, "later", false, 2);
        final DataObject never = resident(resident, "never", false, 3);
        final DataObject dirtyNever = resident(resident, "dirty", true, 0);
        soon.addFutureUse(new Use(10));
        later.addFutureUse(new Use(20));
        assertSame(never, resident.chooseVictim(o -> false), "no future use goes first");
        assertSame(later, resident.chooseVictim(o -> o == never), "then the farthest next use");
        assertSame(soon, resident.chooseVictim(o -> o == never || o == later));
        assertSame(dirtyNever, resident.chooseVictim(o -> o != dirtyNever), "dirty only when nothing clean is left");

        final ResidentObjects belady = new ResidentObjects(false, false);
        final DataObject a = resident(belady, "a", false, 5);
        final DataObject b = resident(belady, "b", true, 6);
        a.addFutureUse(new Use(1));
        assertSame(b, belady.chooseVictim(o -> false), "without d, a dirty object with no future use goes first");
        b.retain();
        assertSame(a, belady.chooseVictim(o -> false), "referenced objects are never victims");
        a.retain();
        assertNull(belady.chooseVictim(o -> false));
    }

    /** LU's left-looking order: the next use of a later column's tile is submitted earlier but runs later. */
    @Test
    void underPriorityOrderTheNextUseIsFarthestByPriorityThenSubmission()
    {
        final ResidentObjects byPriority = new ResidentObjects(true, true);
        final ResidentObjects bySubmission = new ResidentObjects(true, false);
        for (final ResidentObjects resident : List.of(byPriority, bySubmission))
        {
            final DataObject thisColumn = resident(resident, "A[3,1]", false, 1);
            final DataObject nextColumn = resident(resident, "A[0,2]", false, 2);
            final DataObject tie = resident(resident, "A[4,1]", false, 3);
            thisColumn.addFutureUse(new Use(40, -5));
            nextColumn.addFutureUse(new Use(10, -9));
            tie.addFutureUse(new Use(41, -5));
            final DataObject victim = resident.chooseVictim(o -> false);
            assertSame(resident == byPriority ? nextColumn : tie, victim, "the use that is admitted last goes first");
            assertSame(resident == byPriority ? tie : thisColumn, resident.chooseVictim(o -> o == victim),
                "equal priorities fall back to submission order");
        }
    }

    @Test
    void admittedUsesNoLongerCountAsFuture()
    {
        final DataObject o = new DataObject("x", SIZE);
        final Use first = new Use(3);
        o.addFutureUse(first);
        o.addFutureUse(new Use(9));
        assertEquals(3, o.nextUse());
        first.admitted = true;
        assertEquals(9, o.nextUse());
    }

    @Test
    void steadyStateEvictionAllocatesNothing()
    {
        final DramBudget budget = new DramBudget(4L * 12288);
        final BufferPool pool = new BufferPool(budget, 4096);
        final ResidentObjects resident = new ResidentObjects(true, false);
        final DataObject[] objects = new DataObject[4];
        for (int i = 0; i < objects.length; i++)
        {
            objects[i] = new DataObject("o" + i, SIZE);
            final TileBuffer b = pool.acquire(SIZE);
            assertNotNull(b);
            objects[i].buffer(b);
            objects[i].residency(Residency.IN_MEM);
            resident.add(objects[i]);
        }
        final ResidentObjects.Excluded none = o -> false;
        cycle(pool, resident, none, 10_000);
        final com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        final long before = mx.getCurrentThreadAllocatedBytes();
        cycle(pool, resident, none, 100_000);
        final long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 1024, "100k evict/refill cycles allocated " + allocated +
            " B; one object per cycle would be over 1.6 MB, so anything under 1 KiB is the probe's own cost");
        assertTrue(budget.peakPhysical() <= budget.capacity());
    }

    private static void cycle(final BufferPool pool, final ResidentObjects resident,
        final ResidentObjects.Excluded none, final int n)
    {
        for (int i = 0; i < n; i++)
        {
            final DataObject v = resident.chooseVictim(none);
            resident.remove(v);
            pool.release(v.buffer());
            v.buffer(null);
            v.residency(Residency.IN_NVM);
            v.touch(i);
            final TileBuffer b = pool.acquire(SIZE);
            v.buffer(b);
            v.residency(Residency.IN_MEM);
            v.dirty((i & 1) == 0);
            resident.add(v);
        }
    }

    private static DataObject resident(final ResidentObjects r, final String tag, final boolean dirty,
        final long tick)
    {
        final DataObject o = new DataObject(tag, SIZE);
        o.residency(Residency.IN_MEM);
        o.dirty(dirty);
        o.touch(tick);
        r.add(o);
        return o;
    }
}
