package dev.spillway.internal;

import dev.spillway.TaskFailedException;

/**
 * Failed and cancelled tasks not yet reported by {@code awaitAll}: the earliest in submission order, and how many.
 * Written by the IO thread and by workers; failures are rare, so a lock is cheap enough.
 */
final class FailureLog
{
    private TaskRecord first;
    private long count;

    synchronized void record(final TaskRecord t)
    {
        count++;
        if (first == null || t.seq < first.seq)
        {
            first = t;
        }
    }

    /** @return for stall reports, the failures not yet reported, naming the first; null if there are none. */
    synchronized String describe()
    {
        return first == null ? null : count + " task(s) failed or were cancelled, not yet reported by awaitAll; " +
            "the first: " + first.failure().getMessage();
    }

    /** @return the failures since the last call as one exception naming the first, or null if there were none. */
    synchronized TaskFailedException takeUnreported()
    {
        if (first == null)
        {
            return null;
        }
        final Throwable f = first.failure();
        final String others = count > 1 ? "; " + (count - 1) + " other task(s) failed or were cancelled" : "";
        final TaskFailedException named = TaskRecord.rethrowable(f);
        final TaskFailedException e = new TaskFailedException(named.getMessage() + others, named.getCause());
        first = null;
        count = 0;
        return e;
    }
}
