package dev.spillway.internal;

import org.jctools.queues.MessagePassingQueue;
import org.jctools.queues.MpmcUnboundedXaddArrayQueue;

import java.util.function.Consumer;

/**
 * Tasks whose data is resident, waiting for a worker: one shared queue (policy {@code s}, Algorithm 4's work
 * sharing) or one per worker. Producers are the IO thread and submitters of tasks without data; after offering,
 * a producer wakes a sleeping worker unless one is awake and idle.
 */
final class ReadyQueues
{
    private static final int CHUNK = 4096;
    private static final int POOLED_CHUNKS = 4;

    private final MessagePassingQueue<TaskRecord>[] queues;
    private final WakeableIdleStrategy[] idle;
    private int wakeCursor;

    @SuppressWarnings({"unchecked", "rawtypes"})
    ReadyQueues(final int workers, final boolean shared, final long maxParkNanos)
    {
        queues = new MessagePassingQueue[shared ? 1 : workers];
        for (int i = 0; i < queues.length; i++)
        {
            queues[i] = new MpmcUnboundedXaddArrayQueue<>(CHUNK, POOLED_CHUNKS);
        }
        idle = new WakeableIdleStrategy[workers];
        for (int i = 0; i < workers; i++)
        {
            final MessagePassingQueue<TaskRecord> q = queueOf(i);
            idle[i] = new WakeableIdleStrategy(() -> !q.isEmpty(), maxParkNanos);
        }
    }

    /** @return the queue worker {@code worker} takes tasks from. */
    MessagePassingQueue<TaskRecord> queueOf(final int worker)
    {
        return queues[queues.length == 1 ? 0 : worker];
    }

    /** @return worker {@code worker}'s idle strategy. */
    WakeableIdleStrategy idleOf(final int worker)
    {
        return idle[worker];
    }

    /** Queues {@code t} (on its owner's queue without sharing) and makes sure a worker will see it. */
    void offer(final TaskRecord t)
    {
        if (queues.length > 1)
        {
            queues[t.owner].offer(t);
            idle[t.owner].wake();
            return;
        }
        queues[0].offer(t);
        for (final WakeableIdleStrategy w : idle)
        {
            if (w.spinning())
            {
                return;
            }
        }
        for (int i = 0; i < idle.length; i++)
        {
            final int k = (wakeCursor + i) % idle.length;
            if (idle[k].wake())
            {
                wakeCursor = k + 1;
                return;
            }
        }
    }

    /** Takes every queued task out, for cancellation. */
    void drain(final Consumer<TaskRecord> sink)
    {
        for (final MessagePassingQueue<TaskRecord> q : queues)
        {
            TaskRecord t;
            while ((t = q.poll()) != null)
            {
                sink.accept(t);
            }
        }
    }
}
