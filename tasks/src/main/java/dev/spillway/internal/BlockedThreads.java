package dev.spillway.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * For stall reports: the threads of this JVM that are deadlocked, or blocked entering a monitor, with the lock, its
 * owner and the top of their stacks. A task that waits forever on a callback may be waiting on a stuck thread.
 */
final class BlockedThreads
{
    private static final int FRAMES = 6;

    private BlockedThreads()
    {
    }

    /** @return one paragraph per blocked thread, deadlocked ones first; empty when none is blocked. */
    static String describe()
    {
        final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        final long[] deadlocked = mx.findDeadlockedThreads();
        final StringBuilder s = new StringBuilder();
        if (deadlocked != null)
        {
            s.append("  DEADLOCK among ").append(deadlocked.length).append(" thread(s):\n");
            for (final ThreadInfo t : mx.getThreadInfo(deadlocked, false, false))
            {
                append(s, t);
            }
        }
        for (final ThreadInfo t : mx.dumpAllThreads(false, false))
        {
            final long id = t.getThreadId();
            if (t.getThreadState() == Thread.State.BLOCKED &&
                (deadlocked == null || Arrays.stream(deadlocked).noneMatch(d -> d == id)))
            {
                append(s, t);
            }
        }
        return s.toString();
    }

    private static void append(final StringBuilder s, final ThreadInfo t)
    {
        s.append("  thread '").append(t.getThreadName()).append("' ").append(t.getThreadState()).append(" on ")
            .append(t.getLockName()).append(" held by '").append(t.getLockOwnerName()).append("'\n");
        final StackTraceElement[] stack = t.getStackTrace();
        for (int i = 0; i < Math.min(FRAMES, stack.length); i++)
        {
            s.append("      at ").append(stack[i]).append('\n');
        }
    }
}
