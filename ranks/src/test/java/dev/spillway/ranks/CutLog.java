package dev.spillway.ranks;

import dev.spillway.checkpoint.CheckpointStore;
import dev.spillway.checkpoint.Cut;
import dev.spillway.checkpoint.GenerationWriter;
import dev.spillway.checkpoint.RestorePoint;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A checkpoint store for rank tests that keeps the cuts, not the bytes: it lists the cuts committed and lets a test
 * wait for one. It never has a generation to restore.
 */
final class CutLog implements CheckpointStore
{
    private final Consumer<Cut> beginning;
    private final List<Cut> committed = new ArrayList<>();
    /** IO thread. */
    private long next;

    /** @param beginning told of every cut as its generation begins, on the IO thread. */
    CutLog(final Consumer<Cut> beginning)
    {
        this.beginning = beginning;
    }

    @Override
    public RestorePoint restore(final Consumer<String> log)
    {
        return null;
    }

    @Override
    public GenerationWriter begin(final Cut cut)
    {
        beginning.accept(cut);
        next = cut.generation() + 1;
        return new GenerationWriter()
        {
            @Override
            public Cut cut()
            {
                return cut;
            }

            @Override
            public void save(final String tag, final ByteBuffer src, final long version)
            {
            }

            @Override
            public long commit()
            {
                synchronized (CutLog.this)
                {
                    committed.add(cut);
                    CutLog.this.notifyAll();
                }
                return 0;
            }

            @Override
            public void abandon()
            {
            }
        };
    }

    @Override
    public long nextGeneration()
    {
        return next;
    }

    @Override
    public long incarnation()
    {
        return 0;
    }

    @Override
    public void progress(final long completedTasks)
    {
    }

    @Override
    public void markComplete()
    {
    }

    @Override
    public void close()
    {
    }

    /** @return the cuts committed so far, oldest first. */
    synchronized List<Cut> committed()
    {
        return List.copyOf(committed);
    }

    /**
     * Waits until the cut at {@code globalIndex} is committed.
     *
     * @return false if it was not within {@code limit}, a safety net only.
     */
    synchronized boolean awaitCommitted(final long globalIndex, final Duration limit) throws InterruptedException
    {
        final long deadline = System.nanoTime() + limit.toNanos();
        long left;
        while (!holds(globalIndex) && (left = deadline - System.nanoTime()) > 0)
        {
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return holds(globalIndex);
    }

    private boolean holds(final long globalIndex)
    {
        return committed.stream().anyMatch(c -> c.globalIndex() == globalIndex);
    }
}
