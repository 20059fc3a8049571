package dev.spillway.checkpoint;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** A checkpoint store in the heap, for engine tests: committed generations survive a runtime's close. */
final class MemoryCheckpointStore implements CheckpointStore
{
    private final TreeMap<Long, Generation> committed = new TreeMap<>();
    private long next;
    private long incarnation;
    private long progress = -1;
    private boolean complete;
    int begun;
    /** How many commits still to refuse, so that their generations are abandoned. */
    int failCommits;

    @Override
    public RestorePoint restore(final Consumer<String> log)
    {
        if (complete || committed.isEmpty())
        {
            committed.clear();
            complete = false;
            return null;
        }
        final Generation g = committed.lastEntry().getValue();
        incarnation = g.cut.incarnation() + 1;
        final long before = progress;
        return new RestorePoint()
        {
            @Override
            public Cut cut()
            {
                return g.cut;
            }

            @Override
            public Map<String, Block> blocks()
            {
                final Map<String, Block> m = new HashMap<>();
                g.blocks.forEach((tag, saved) -> m.put(tag, new Block(saved.bytes().length, saved.version())));
                return m;
            }

            @Override
            public int read(final String tag, final ByteBuffer dst)
            {
                final byte[] bytes = g.blocks.get(tag).bytes();
                dst.duplicate().put(bytes);
                return bytes.length;
            }

            @Override
            public String explanation()
            {
                return "generation " + g.cut.generation();
            }

            @Override
            public double readSeconds()
            {
                return 0;
            }

            @Override
            public double verifySeconds()
            {
                return 0;
            }

            @Override
            public long previousRunCompleted()
            {
                return before;
            }
        };
    }

    @Override
    public GenerationWriter begin(final Cut cut)
    {
        begun++;
        next = cut.generation() + 1;
        final Generation base = committed.isEmpty() ? null : committed.lastEntry().getValue();
        final Generation g = new Generation(cut, base == null ? new HashMap<>() : new HashMap<>(base.blocks));
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
                final byte[] bytes = new byte[src.remaining()];
                src.duplicate().get(bytes);
                g.blocks.put(tag, new Saved(bytes, version));
            }

            @Override
            public long commit() throws java.io.IOException
            {
                synchronized (MemoryCheckpointStore.this)
                {
                    if (failCommits > 0)
                    {
                        failCommits--;
                        throw new java.io.IOException("commit of generation " + cut.generation() + " refused (test)");
                    }
                    committed.put(cut.generation(), g);
                    MemoryCheckpointStore.this.notifyAll();
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
    public synchronized void mend(final Cut cut, final Map<String, ByteBuffer> blocks)
    {
        final Generation newest = committed.lastEntry().getValue();
        if (newest.cut.generation() != cut.generation())
        {
            throw new IllegalStateException("generation " + cut.generation() + " is not the newest");
        }
        blocks.forEach((tag, contents) ->
        {
            final Saved old = newest.blocks.get(tag);
            if (old == null)
            {
                throw new IllegalArgumentException("generation " + cut.generation() + " holds no '" + tag + "'");
            }
            final byte[] bytes = new byte[contents.remaining()];
            contents.duplicate().get(bytes);
            newest.blocks.put(tag, new Saved(bytes, old.version()));
        });
    }

    @Override
    public long nextGeneration()
    {
        return next;
    }

    @Override
    public long incarnation()
    {
        return incarnation;
    }

    @Override
    public void progress(final long completedTasks)
    {
        progress = completedTasks;
    }

    @Override
    public void markComplete()
    {
        complete = true;
    }

    @Override
    public void close()
    {
    }

    /** Forgets that the run completed, as if it had crashed after its last commit. */
    synchronized void forgetCompletion()
    {
        complete = false;
    }

    /** @return the cuts of the committed generations, oldest first. */
    synchronized List<Cut> cuts()
    {
        return committed.values().stream().map(g -> g.cut).toList();
    }

    /** @return the tags the committed generation of {@code cut} holds blocks for. */
    synchronized Set<String> tags(final Cut cut)
    {
        return Set.copyOf(committed.get(cut.generation()).blocks.keySet());
    }

    /** @return the bytes the committed generation of {@code cut} holds for {@code tag}. */
    synchronized byte[] bytes(final Cut cut, final String tag)
    {
        return committed.get(cut.generation()).blocks.get(tag).bytes().clone();
    }

    /** @return the data version each committed generation holds for {@code tag}, oldest first (-1: none). */
    synchronized List<Long> versions(final String tag)
    {
        return committed.values().stream()
            .map(g -> g.blocks.containsKey(tag) ? g.blocks.get(tag).version() : -1L).toList();
    }

    synchronized int generations()
    {
        return committed.size();
    }

    /**
     * Blocks until a generation is committed, for a task that must fail only after one is.
     *
     * @return false if none was within {@code limit}, a safety net only.
     */
    synchronized boolean awaitGeneration(final Duration limit) throws InterruptedException
    {
        final long deadline = System.nanoTime() + limit.toNanos();
        long left;
        while (committed.isEmpty() && (left = deadline - System.nanoTime()) > 0)
        {
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return !committed.isEmpty();
    }

    private record Generation(Cut cut, Map<String, Saved> blocks)
    {
    }

    private record Saved(byte[] bytes, long version)
    {
    }
}
