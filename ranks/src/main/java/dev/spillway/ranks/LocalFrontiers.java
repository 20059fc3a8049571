package dev.spillway.ranks;

import java.util.Arrays;

/**
 * Where each global index begins among this rank's local tasks: the sequence number of the first local task
 * submitted at it, for every global index that has one since the latest cut. It turns an admission front (a local
 * sequence number) into a global index, and a global index into the local frontier of a cut there. Under the
 * runtime's submission lock.
 */
final class LocalFrontiers
{
    private final boolean recording;
    private long[] globals;
    private long[] seqs;
    private int size;
    private long nextSeq;
    /** Every global index before it lies before a cut: its tasks are forgotten. */
    private long floor;

    /** @param recording whether cuts may lie behind the submission front; else only the next sequence is kept. */
    LocalFrontiers(final boolean recording)
    {
        this.recording = recording;
        this.globals = new long[recording ? 256 : 0];
        this.seqs = new long[recording ? 256 : 0];
    }

    /** A local task, the next one, submitted at {@code globalIndex}. */
    void submitted(final long globalIndex, final long seq)
    {
        if (seq < nextSeq)
        {
            throw new IllegalStateException("local task #" + seq + " (global index " + globalIndex + ") recorded " +
                "after #" + (nextSeq - 1));
        }
        nextSeq = seq + 1;
        if (!recording)
        {
            return;
        }
        if (size == 0 || globals[size - 1] != globalIndex)
        {
            if (size == globals.length)
            {
                globals = Arrays.copyOf(globals, size * 2);
                seqs = Arrays.copyOf(seqs, size * 2);
            }
            globals[size] = globalIndex;
            seqs[size] = seq;
            size++;
        }
    }

    /** @return the sequence number the next local task will have. */
    long nextSeq()
    {
        return nextSeq;
    }

    /** @return the local frontier of a cut at {@code globalIndex}: the first local task at or after it. */
    long frontierOf(final long globalIndex)
    {
        for (int i = 0; i < size; i++)
        {
            if (globals[i] >= globalIndex)
            {
                return seqs[i];
            }
        }
        return nextSeq;
    }

    /**
     * @return the global index one past that of local task {@code seqFront - 1}: a cut there or later leaves every
     *         local task before {@code seqFront} before it.
     */
    long globalFront(final long seqFront)
    {
        long front = floor;
        for (int i = 0; i < size && seqs[i] < seqFront; i++)
        {
            front = Math.max(front, globals[i] + 1);
        }
        return front;
    }

    /** A cut at {@code globalIndex} was requested: no later one lies before it. */
    void cutAt(final long globalIndex)
    {
        int keep = 0;
        while (keep < size && globals[keep] < globalIndex)
        {
            keep++;
        }
        System.arraycopy(globals, keep, globals, 0, size - keep);
        System.arraycopy(seqs, keep, seqs, 0, size - keep);
        size -= keep;
        floor = Math.max(floor, globalIndex);
    }
}
