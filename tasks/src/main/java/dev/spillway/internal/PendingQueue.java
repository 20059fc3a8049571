package dev.spillway.internal;

import dev.spillway.IoOrder;
import dev.spillway.memory.Residency;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.Queue;

/** Tasks whose dependencies are met, waiting for DRAM, in the order of the IO policy. IO thread only. */
abstract class PendingQueue
{
    /** Higher priority first, then submission order. */
    static final Comparator<TaskRecord> PRIORITY_THEN_SEQ = (a, b) -> a.priority != b.priority ?
        Integer.compare(b.priority, a.priority) : Long.compare(a.seq, b.seq);

    abstract void add(TaskRecord t);

    /** @return the task the policy admits next, or null. */
    abstract TaskRecord peek();

    /** Removes what {@link #peek()} returned. */
    abstract void pop();

    abstract int size();

    /** Removes every task, handing each to {@code sink}. */
    abstract void drainTo(ArrayList<TaskRecord> sink);

    static PendingQueue of(final IoOrder order)
    {
        return switch (order)
        {
            case FIFO -> new Ordered(new ArrayDeque<>());
            case PRIORITY -> new Ordered(new PriorityQueue<>(PRIORITY_THEN_SEQ));
            case FEWEST_IN_NVM -> new FewestInNvm();
        };
    }

    /** {@code f} over an {@link ArrayDeque}: arrival order; {@code p} over a {@link PriorityQueue}: priority, then seq. */
    static final class Ordered extends PendingQueue
    {
        private final Queue<TaskRecord> queue;

        Ordered(final Queue<TaskRecord> queue)
        {
            this.queue = queue;
        }

        @Override
        void add(final TaskRecord t)
        {
            queue.add(t);
        }

        @Override
        TaskRecord peek()
        {
            return queue.peek();
        }

        @Override
        void pop()
        {
            queue.poll();
        }

        @Override
        int size()
        {
            return queue.size();
        }

        @Override
        void drainTo(final ArrayList<TaskRecord> sink)
        {
            sink.addAll(queue);
            queue.clear();
        }
    }

    /**
     * {@code a}: fewest objects to read from NVMe, then submission order. Residency changes under the queue, so
     * {@link #peek()} scans; the scan is linear in the pending tasks and allocates nothing.
     */
    static final class FewestInNvm extends PendingQueue
    {
        private final ArrayList<TaskRecord> tasks = new ArrayList<>();
        private int chosen = -1;

        @Override
        void add(final TaskRecord t)
        {
            tasks.add(t);
            chosen = -1;
        }

        @Override
        TaskRecord peek()
        {
            int best = -1;
            int bestCount = Integer.MAX_VALUE;
            long bestSeq = Long.MAX_VALUE;
            for (int i = 0, n = tasks.size(); i < n; i++)
            {
                final TaskRecord t = tasks.get(i);
                final int count = readsFromNvm(t);
                if (count < bestCount || (count == bestCount && t.seq < bestSeq))
                {
                    best = i;
                    bestCount = count;
                    bestSeq = t.seq;
                }
            }
            chosen = best;
            return best < 0 ? null : tasks.get(best);
        }

        @Override
        void pop()
        {
            final int last = tasks.size() - 1;
            tasks.set(chosen, tasks.get(last));
            tasks.remove(last);
            chosen = -1;
        }

        @Override
        int size()
        {
            return tasks.size();
        }

        @Override
        void drainTo(final ArrayList<TaskRecord> sink)
        {
            sink.addAll(tasks);
            tasks.clear();
        }

        private static int readsFromNvm(final TaskRecord t)
        {
            int count = 0;
            for (int i = 0; i < t.refs.length; i++)
            {
                final Residency r = t.refs[i].object.residency();
                if (t.privileges[i].readsContents() && (r == Residency.IN_NVM || r == Residency.UNMATERIALIZED))
                {
                    count++;
                }
            }
            return count;
        }
    }
}
