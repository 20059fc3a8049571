package dev.spillway.internal;

/**
 * Unfinished tasks that have data, in submission order, as an intrusive list, for "what is everyone waiting for" reports.
 * Linked and unlinked by the IO thread; walked by any thread under the same monitor.
 */
final class LiveTasks
{
    private TaskRecord head;
    private TaskRecord tail;
    private int size;

    synchronized void add(final TaskRecord t)
    {
        t.livePrev = tail;
        if (tail == null)
        {
            head = t;
        }
        else
        {
            tail.liveNext = t;
        }
        tail = t;
        size++;
    }

    synchronized void remove(final TaskRecord t)
    {
        if (t.livePrev == null)
        {
            head = t.liveNext;
        }
        else
        {
            t.livePrev.liveNext = t.liveNext;
        }
        if (t.liveNext == null)
        {
            tail = t.livePrev;
        }
        else
        {
            t.liveNext.livePrev = t.livePrev;
        }
        t.livePrev = null;
        t.liveNext = null;
        size--;
    }

    /** Adds every listed task to {@code sink}, so the caller may change the list afterwards. */
    synchronized void copyTo(final java.util.List<TaskRecord> sink)
    {
        for (TaskRecord t = head; t != null; t = t.liveNext)
        {
            sink.add(t);
        }
    }

    synchronized int size()
    {
        return size;
    }

    synchronized String describe(final int limit)
    {
        final StringBuilder sb = new StringBuilder();
        int n = 0;
        for (TaskRecord t = head; t != null; t = t.liveNext)
        {
            if (t.isDone())
            {
                continue;
            }
            if (n++ == limit)
            {
                sb.append("  ... and more\n");
                break;
            }
            sb.append("  ").append(t).append(": ").append(t.waitReason()).append('\n');
        }
        return sb.toString();
    }
}
