package dev.spillway.memory;

/**
 * The objects whose contents are in DRAM, on a clean list and a dirty list, and the choice of eviction victims.
 *
 * <p>A victim is an {@link Residency#IN_MEM} object with no references that the requesting task does not use and
 * whose last write-back did not fail.
 * Among those, with clean-first eviction (policy {@code d}) clean objects go before dirty ones; then the object
 * whose next use by an already-submitted task is farthest away goes first (Belady on the known future); ties go
 * to the least recently used. "Farthest" follows the order tasks are admitted in: submission order, or under
 * priority order (policy {@code p}) priority first. An object's next use is its earliest user in submission order,
 * which is its earliest in priority order too whenever its users' priorities fall as they are submitted, or a later
 * user of higher priority depends on the earlier ones (LU's left-looking priorities). Selection scans the lists and
 * allocates nothing.
 */
public final class ResidentObjects
{
    private final ResidentList clean = new ResidentList(this);
    private final ResidentList dirty = new ResidentList(this);
    private final boolean cleanFirst;
    private final boolean byPriority;
    private long cleanBytes;

    /**
     * @param cleanFirst evict unmodified objects before modified ones (policy {@code d}).
     * @param byPriority tasks are admitted by priority first (policy {@code p}), so a use's priority sets its distance.
     */
    public ResidentObjects(final boolean cleanFirst, final boolean byPriority)
    {
        this.cleanFirst = cleanFirst;
        this.byPriority = byPriority;
    }

    /** Adds an object that now holds a buffer. */
    public void add(final DataObject o)
    {
        if (o.dirty())
        {
            dirty.add(o);
        }
        else
        {
            clean.add(o);
            cleanBytes += o.size();
        }
    }

    /** Removes an object that gives its buffer up. */
    public void remove(final DataObject o)
    {
        if (o.list() == clean)
        {
            cleanBytes -= o.size();
        }
        if (o.list() != null)
        {
            o.list().remove(o);
        }
    }

    /** @return how many objects hold buffers. */
    public int size()
    {
        return clean.size() + dirty.size();
    }

    /** @return payload bytes of resident clean objects. */
    public long cleanBytes()
    {
        return cleanBytes;
    }

    /**
     * @param excluded a marker the caller set on the requesting task's own objects: objects for which
     *                 {@code excluded.test(o)} holds are never chosen.
     * @return the best victim, or {@code null} if no object may be evicted.
     */
    public DataObject chooseVictim(final Excluded excluded)
    {
        if (cleanFirst)
        {
            final DataObject c = best(clean, null, excluded);
            return c != null ? c : best(dirty, null, excluded);
        }
        return best(dirty, best(clean, null, excluded), excluded);
    }

    /**
     * @return the dirty, unreferenced resident object whose next use is farthest away, for write-behind, or
     *         {@code null} if none.
     */
    public DataObject chooseWriteBehind()
    {
        return best(dirty, null, o -> false);
    }

    /** @return bytes that evicting every eligible victim for the excluding task would free. */
    public long evictableBytes(final Excluded excluded, final BufferPool pool)
    {
        return evictable(clean, excluded, pool) + evictable(dirty, excluded, pool);
    }

    private static long evictable(final ResidentList list, final Excluded excluded, final BufferPool pool)
    {
        long bytes = 0;
        for (int i = 0, n = list.size(); i < n; i++)
        {
            final DataObject o = list.get(i);
            if (o.refCount() == 0 && o.residency() == Residency.IN_MEM && !o.unspillable() && !excluded.test(o))
            {
                bytes += pool.cost(o.size());
            }
        }
        return bytes;
    }

    private DataObject best(final ResidentList list, final DataObject incumbent, final Excluded excluded)
    {
        DataObject best = incumbent;
        FutureUse bestNext = best == null ? null : best.nextUser();
        if (best != null && best.discardable())
        {
            return best;
        }
        for (int i = 0, n = list.size(); i < n; i++)
        {
            final DataObject o = list.get(i);
            if (o.refCount() != 0 || o.residency() != Residency.IN_MEM || o.unspillable() || excluded.test(o))
            {
                continue;
            }
            if (o.discardable())
            {
                return o;
            }
            final FutureUse next = o.nextUser();
            final int later = best == null ? 1 : later(next, bestNext);
            if (later > 0 || (later == 0 && o.lastUseTick() < best.lastUseTick()))
            {
                best = o;
                bestNext = next;
            }
        }
        return best;
    }

    /** @return positive when use {@code a} comes after {@code b} in admission order; no use comes last. */
    private int later(final FutureUse a, final FutureUse b)
    {
        if (a == b)
        {
            return 0;
        }
        if (a == null || b == null)
        {
            return a == null ? 1 : -1;
        }
        if (byPriority && a.priority() != b.priority())
        {
            return Integer.compare(b.priority(), a.priority());
        }
        return Long.compare(a.seq(), b.seq());
    }

    /** Objects a victim search must skip. */
    @FunctionalInterface
    public interface Excluded
    {
        /** @return true if {@code o} must not be evicted now. */
        boolean test(DataObject o);
    }
}
