package dev.spillway.internal;

import java.util.LinkedHashSet;

/** Unfinished tasks, for "what is everyone waiting for" reports. Written by the IO thread, read by any thread. */
final class LiveTasks
{
    private final LinkedHashSet<TaskRecord> tasks = new LinkedHashSet<>();

    synchronized void add(final TaskRecord t)
    {
        tasks.add(t);
    }

    synchronized void remove(final TaskRecord t)
    {
        tasks.remove(t);
    }

    synchronized String describe(final int limit)
    {
        final StringBuilder sb = new StringBuilder();
        int n = 0;
        for (final TaskRecord t : tasks)
        {
            if (n++ == limit)
            {
                sb.append("  ... and ").append(tasks.size() - limit).append(" more\n");
                break;
            }
            sb.append("  ").append(t).append(": ").append(t.waitReason()).append('\n');
        }
        return sb.toString();
    }
}
