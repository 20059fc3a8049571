package dev.spillway.internal;

import dev.spillway.Data;
import dev.spillway.memory.DataObject;

import java.util.ArrayDeque;
import java.util.ArrayList;

/** The runtime's handle on a data object: the memory tier's record plus dependency state. */
final class DataRef implements Data
{
    final Engine engine;
    final DataObject object;
    /** Submit side (under the submit lock): whether the latest submitted access leaves defined contents. */
    boolean hasContents;
    /** IO thread: the last submitted exclusive user, and readers submitted after it. */
    TaskRecord lastWriter;
    final ArrayList<TaskRecord> readers = new ArrayList<>();
    /** IO thread: the failed task whose output this is, or null. */
    TaskRecord poisonedBy;
    /** IO thread, with checkpoints on: submitted writers not yet finished, in order (created on first use). */
    private ArrayDeque<TaskRecord> unfinishedWriters;
    /**
     * IO thread: writers finished since the last committed save, and whether the latest left contents. A capture
     * notes its generation and the count it saw; the count drops by that only when the generation commits.
     */
    long writesSinceSave;
    long capturedIn = -1;
    long writesAtCapture;
    boolean ioHasContents;
    /** IO thread: the generation whose save of this object is pending, or -1; and writers parked until it is. */
    long savePending = -1;
    ArrayList<TaskRecord> parked;

    DataRef(final Engine engine, final String tag, final int size, final boolean pinned)
    {
        this.engine = engine;
        this.object = new DataObject(tag, size, pinned);
    }

    ArrayDeque<TaskRecord> unfinishedWriters()
    {
        if (unfinishedWriters == null)
        {
            unfinishedWriters = new ArrayDeque<>(4);
        }
        return unfinishedWriters;
    }

    @Override
    public String tag()
    {
        return object.tag();
    }

    @Override
    public int size()
    {
        return object.size();
    }

    @Override
    public String toString()
    {
        return "'" + object.tag() + "'";
    }
}
