package dev.spillway.memory;

import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * The engine's record of one data object. Every mutable field is owned by the IO thread; other threads read
 * {@link #residency()} for reporting only.
 */
public final class DataObject
{
    /** {@link #nextUse()} when no submitted task will use the object again. */
    public static final long NO_FUTURE_USE = Long.MAX_VALUE;

    private final String tag;
    private final int size;
    private final boolean pinned;
    private final ArrayDeque<FutureUse> futureUses = new ArrayDeque<>();
    private final ArrayList<Object> waiters = new ArrayList<>();

    private volatile Residency residency = Residency.UNMATERIALIZED;
    private TileBuffer buffer;
    private int refCount;
    private boolean dirty;
    private boolean stored;
    private boolean keepAfterWrite;
    private boolean fetchReads;
    private boolean discardable;
    private boolean unspillable;
    private long version;
    private long lastUseTick;
    private int listIndex = -1;
    private ResidentList list;

    /**
     * @param tag  the stable user tag.
     * @param size payload bytes.
     */
    public DataObject(final String tag, final int size)
    {
        this(tag, size, false);
    }

    /** @param pinned whether the object stays in DRAM once resident. */
    public DataObject(final String tag, final int size, final boolean pinned)
    {
        this.tag = tag;
        this.size = size;
        this.pinned = pinned;
    }

    /** @return the stable user tag. */
    public String tag()
    {
        return tag;
    }

    /** @return payload bytes. */
    public int size()
    {
        return size;
    }

    /** @return where the contents live now. */
    public Residency residency()
    {
        return residency;
    }

    /** Moves the object to {@code next}. */
    public void residency(final Residency next)
    {
        residency = next;
    }

    /** @return the DRAM buffer, or {@code null} if none is held. */
    public TileBuffer buffer()
    {
        return buffer;
    }

    /** Attaches or detaches ({@code null}) the DRAM buffer. */
    public void buffer(final TileBuffer buffer)
    {
        this.buffer = buffer;
    }

    /** @return how many admitted, unfinished tasks use the object; only 0 is evictable. */
    public int refCount()
    {
        return refCount;
    }

    /** Takes a reference for an admitted task. */
    public void retain()
    {
        refCount++;
    }

    /** Drops a reference; returns the count left. */
    public int release()
    {
        if (refCount <= 0)
        {
            throw new IllegalStateException("reference count underflow on '" + tag + "'");
        }
        return --refCount;
    }

    /** @return true if DRAM holds contents newer than the NVMe copy (or there is no NVMe copy). */
    public boolean dirty()
    {
        return dirty;
    }

    /** Sets the dirty mark, moving the object between the clean and dirty lists if resident. */
    public void dirty(final boolean dirty)
    {
        if (this.dirty != dirty && list != null)
        {
            final ResidentObjects owner = list.owner;
            owner.remove(this);
            this.dirty = dirty;
            owner.add(this);
            return;
        }
        this.dirty = dirty;
    }

    /** @return true if the NVMe tier holds a block of the object's current or an older version. */
    public boolean stored()
    {
        return stored;
    }

    /** Records whether the NVMe tier holds a block. */
    public void stored(final boolean stored)
    {
        this.stored = stored;
    }

    /** @return true if the contents are garbage (after SCRATCH use or a failed writer): evict first, never write. */
    public boolean discardable()
    {
        return discardable;
    }

    /** Marks the contents as garbage, or as meaningful again. */
    public void discardable(final boolean discardable)
    {
        this.discardable = discardable;
    }

    /** @return true if pinned, or if its last write-back failed: not a victim (again until its contents change). */
    public boolean unspillable()
    {
        return unspillable || pinned;
    }

    /** @return true if the object stays in DRAM once resident. */
    public boolean pinned()
    {
        return pinned;
    }

    /** Marks a failed write-back, or clears the mark. */
    public void unspillable(final boolean unspillable)
    {
        this.unspillable = unspillable;
    }

    /** @return the data version, bumped by every completed WRITE or READ_WRITE task. */
    public long version()
    {
        return version;
    }

    /** Bumps the version. */
    public void bumpVersion()
    {
        version++;
    }

    /** A restored object resumes at the version its checkpoint block holds. */
    public void restoredVersion(final long version)
    {
        this.version = version;
    }

    /** @return whether an in-flight fetch must read from NVMe (false: allocate only). */
    public boolean fetchReads()
    {
        return fetchReads;
    }

    /** Sets whether the in-flight fetch reads from NVMe. */
    public void fetchReads(final boolean reads)
    {
        fetchReads = reads;
    }

    /** @return true if the in-flight write-back keeps the buffer (write-behind, or a task wants the object back). */
    public boolean keepAfterWrite()
    {
        return keepAfterWrite;
    }

    /** Sets whether the in-flight write-back keeps the buffer. */
    public void keepAfterWrite(final boolean keep)
    {
        keepAfterWrite = keep;
    }

    /** Records a use at the engine's logical clock {@code tick}, for least-recently-used tie breaks. */
    public void touch(final long tick)
    {
        lastUseTick = tick;
    }

    long lastUseTick()
    {
        return lastUseTick;
    }

    /** Queues a submitted task as a future user, in submission order. */
    public void addFutureUse(final FutureUse use)
    {
        futureUses.addLast(use);
    }

    /** @return the submission sequence of the earliest not-yet-admitted user, or {@link #NO_FUTURE_USE}. */
    public long nextUse()
    {
        final FutureUse head = nextUser();
        return head == null ? NO_FUTURE_USE : head.seq();
    }

    /** @return the earliest not-yet-admitted user in submission order, or {@code null}. */
    public FutureUse nextUser()
    {
        FutureUse head = futureUses.peekFirst();
        while (head != null && head.admitted())
        {
            futureUses.pollFirst();
            head = futureUses.peekFirst();
        }
        return head;
    }

    /** @return the engine-owned list of parties waiting for an in-flight transfer of this object. */
    public ArrayList<Object> waiters()
    {
        return waiters;
    }

    int listIndex()
    {
        return listIndex;
    }

    void listIndex(final int index, final ResidentList list)
    {
        this.listIndex = index;
        this.list = list;
    }

    ResidentList list()
    {
        return list;
    }

    @Override
    public String toString()
    {
        return "'" + tag + "' (" + ByteUnits.format(size) + ", " + residency + (dirty ? ", dirty" : "") + ", refs " + refCount + ")";
    }
}
