package dev.spillway.checkpoint;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Where a runtime's checkpoints live. {@link #restore} is called once, when the runtime opens; everything else
 * from the IO thread.
 */
public interface CheckpointStore extends AutoCloseable
{
    /**
     * Finds the newest generation whose manifest and every block verify. Generations that do not verify are
     * reported through {@code log}, with the reason, and the next older one is tried.
     *
     * @return the generation to resume from, or {@code null} when there is none (a fresh directory, a finished run,
     *         or no generation that verifies); the next generation number continues after any found.
     */
    RestorePoint restore(Consumer<String> log) throws IOException;

    /** Starts writing the generation of {@code cut}; at most one is in flight. */
    GenerationWriter begin(Cut cut) throws IOException;

    /** @return the number the next generation should carry. */
    long nextGeneration();

    /**
     * @return the incarnation of this run: how many times it restarted, with or without a checkpoint to resume (0
     *         fresh).
     */
    long incarnation();

    /** Records, cheaply and without fsync, how many tasks this run has completed; read back after a crash. */
    void progress(long completedTasks);

    /** Marks the run finished: the next runtime opened on this directory starts afresh. */
    void markComplete() throws IOException;

    /**
     * Replaces blocks of the newest committed generation, the one of {@code cut}, with contents known to be right (a
     * replica mended from its sphere's majority); later generations inherit the new blocks. Called while no
     * generation is in flight.
     *
     * @param blocks tag to contents, each at the version the generation records; left unchanged.
     * @throws IOException              when the store cannot write, or cannot mend at all (by default).
     * @throws IllegalArgumentException naming a block the generation lacks, or one whose length differs.
     * @throws IllegalStateException    when the generation of {@code cut} is not the newest committed one.
     */
    default void mend(final Cut cut, final Map<String, ByteBuffer> blocks) throws IOException
    {
        throw new IOException(this + " cannot mend a committed generation");
    }

    @Override
    void close() throws IOException;
}
