package dev.spillway.resilience.store;

import dev.spillway.io.DurableFiles;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The {@code starts} file of a checkpoint directory: {@code <incarnation> <originMillis>}, the restarts of the run
 * in it so far and when it first started. A run records its start once it has finished a task, whether or not it
 * ever commits a checkpoint, so the next start counts it as a failure; a run refused before doing any work is not
 * counted.
 *
 * @param incarnation        restarts before this run: 0 on a fresh directory or after a completed run.
 * @param originMillis wall-clock milliseconds of the run's first start.
 */
record RunStarts(long incarnation, long originMillis)
{
    /**
     * @param completed whether the previous run completed: this one is then a fresh run.
     * @return this run's start: one more than the recorded one, from the same origin, or incarnation 0 from now.
     */
    static RunStarts next(final Path dir, final boolean completed, final long nowMillis) throws IOException
    {
        final RunStarts previous = completed ? null : read(dir.resolve(Generations.STARTS));
        return previous == null ? new RunStarts(0, nowMillis) : new RunStarts(previous.incarnation + 1,
            previous.originMillis);
    }

    /** Records this start, durably and atomically ({@link DurableFiles#replace}). */
    void write(final Path dir) throws IOException
    {
        DurableFiles.replace(dir.resolve(Generations.STARTS), incarnation + " " + originMillis + "\n");
    }

    /** @return the recorded start, or null if there is none or it cannot be parsed (then the count starts over). */
    private static RunStarts read(final Path file) throws IOException
    {
        final String text = DurableFiles.read(file);
        if (text == null)
        {
            return null;
        }
        final String[] parts = text.split("\\s+");
        try
        {
            return parts.length == 2 ? new RunStarts(Long.parseLong(parts[0]), Long.parseLong(parts[1])) : null;
        }
        catch (final NumberFormatException e)
        {
            return null;
        }
    }
}
