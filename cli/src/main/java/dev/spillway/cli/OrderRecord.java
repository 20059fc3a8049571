package dev.spillway.cli;

import dev.spillway.io.DurableFiles;
import dev.spillway.memory.ByteUnits;
import dev.spillway.resilience.store.FileCheckpointStore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The DRAM budget that shaped a checkpointed run's submission order (LU's column blocks, GEMM's C blocks), kept in
 * its checkpoint directory while the run can be resumed. A resume with another {@code --dram} must submit the same
 * program, or the program hash refuses it at the cut. Single-process runs only: on ranks the order comes from each
 * rank's {@code --dram}, which a relaunch repeats.
 */
final class OrderRecord
{
    /** The file's name in the checkpoint directory. */
    static final String FILE = "submission-order";
    private static final String KEY = "order-dram ";

    private final Path file;
    private final boolean resumes;
    private final Long recorded;

    private OrderRecord(final Path file, final boolean resumes, final Long recorded)
    {
        this.file = file;
        this.resumes = resumes;
        this.recorded = recorded;
    }

    /**
     * Reads the record of the run checkpointed in {@code checkpointDir}; one left by a finished run, or beside no
     * committed generation, is stale and ignored.
     *
     * @throws IOException naming the file if a record of a resumable run cannot be read or holds something else.
     */
    static OrderRecord in(final Path checkpointDir) throws IOException
    {
        final Path file = checkpointDir.resolve(FILE);
        final boolean resumes = FileCheckpointStore.holdsUnfinishedRun(checkpointDir);
        return new OrderRecord(file, resumes, resumes ? read(file) : null);
    }

    /**
     * @param explicit {@code --order-dram}, or null.
     * @param budget   this run's DRAM budget.
     * @return the budget that shapes this run's order: the resumed run's, else {@code explicit}, else {@code budget}.
     * @throws IllegalArgumentException if {@code explicit} differs from the resumed run's.
     */
    long choose(final Long explicit, final long budget)
    {
        if (explicit != null && recorded != null && !explicit.equals(recorded))
        {
            throw new IllegalArgumentException("--order-dram " + explicit + " differs from the " + recorded +
                " bytes recorded in " + file + " by the run it resumes; drop it, or use a fresh checkpoint directory");
        }
        return recorded != null ? recorded : explicit != null ? explicit : budget;
    }

    /**
     * Just before the run: records {@code order} if this run starts afresh. A resumed run keeps its record, and one
     * resumed without a record (checkpointed before records) is left without.
     *
     * @return what to tell the user, or null.
     */
    String keep(final long order, final long budget) throws IOException
    {
        if (!resumes)
        {
            write(order);
            return null;
        }
        return recorded == null || recorded == budget ? null : file.getParent() + " holds a run whose submission " +
            "order a DRAM budget of " + ByteUnits.format(recorded) + " shaped; this run keeps that order, so it can " +
            "resume, with DRAM " + ByteUnits.format(budget);
    }

    /** Forgets the record once its run has finished. */
    void delete() throws IOException
    {
        Files.deleteIfExists(file);
    }

    private static Long read(final Path file) throws IOException
    {
        final String text = DurableFiles.read(file);
        if (text == null)
        {
            return null;
        }
        if (text.startsWith(KEY))
        {
            try
            {
                final long bytes = Long.parseLong(text.substring(KEY.length()).trim());
                if (bytes > 0)
                {
                    return bytes;
                }
            }
            catch (final NumberFormatException ignored)
            {
                // reported below
            }
        }
        throw new IOException(file + " should hold \"" + KEY + "BYTES\", the DRAM budget that shaped the " +
            "checkpointed run's submission order, but holds \"" + text + "\"; write the --dram of the run that " +
            "took the checkpoints there, in bytes, or use a fresh checkpoint directory");
    }

    /** Writes {@code bytes} durably and atomically: a reader sees the old record or the new one. */
    private void write(final long bytes) throws IOException
    {
        DurableFiles.replace(file, KEY + bytes + "\n");
    }
}
