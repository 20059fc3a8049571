package dev.spillway.internal;

import java.util.Arrays;

/**
 * The program hash after each task submitted since the oldest point a cut may still be requested at, so that a cut
 * behind the submission front ({@link Submissions#requestCutAt}) records the hash of exactly the tasks before it.
 * Under the submission lock.
 */
final class PrefixHashes
{
    private long[] hashes = new long[1024];
    /** The sequence number of {@code hashes[0]}. */
    private long base;
    private int size;

    /** Records the program hash after task {@code seq}, the next in submission order. */
    void add(final long seq, final long hash)
    {
        if (size == 0)
        {
            base = seq;
        }
        else if (seq != base + size)
        {
            throw new IllegalStateException("the program hash after task #" + seq + " recorded after #" +
                (base + size - 1));
        }
        if (size == hashes.length)
        {
            hashes = Arrays.copyOf(hashes, size * 2);
        }
        hashes[size++] = hash;
    }

    /** @return whether the hash after task {@code seq} is held. */
    boolean holds(final long seq)
    {
        return seq >= base && seq < base + size;
    }

    /** @return the program hash after task {@code seq}, which must be {@link #holds held}. */
    long after(final long seq)
    {
        return hashes[(int)(seq - base)];
    }

    /** Forgets the hashes of tasks before {@code seq}: no cut will be requested before it. */
    void dropBefore(final long seq)
    {
        final int drop = (int)Math.min(size, Math.max(0, seq - base));
        if (drop > 0)
        {
            System.arraycopy(hashes, drop, hashes, 0, size - drop);
            size -= drop;
            base += drop;
        }
    }
}
