package dev.spillway.ranks;

import dev.spillway.Data;

import java.util.Arrays;

/**
 * What every rank knows of one data object: its owner, how many writes were submitted to it, and which ranks hold
 * the latest version. Updated under the submission lock, identically on every rank, because every rank submits the
 * same program.
 */
final class Placement
{
    private static final int NONE = -1;

    final Data local;
    final int owner;
    /** Matching tag of this object's transfers. */
    final int tag;
    int version;
    private final int[] held;

    Placement(final Data local, final int owner, final int tag, final int size)
    {
        this.local = local;
        this.owner = owner;
        this.tag = tag;
        this.held = new int[size];
        Arrays.fill(held, NONE);
    }

    boolean heldBy(final int rank)
    {
        return held[rank] == version;
    }

    /** @return a rank holding the latest version, the owner first, or -1 when nobody wrote it. */
    int holder()
    {
        if (heldBy(owner))
        {
            return owner;
        }
        for (int r = 0; r < held.length; r++)
        {
            if (heldBy(r))
            {
                return r;
            }
        }
        return NONE;
    }

    void received(final int rank)
    {
        held[rank] = version;
    }

    /** A task on {@code rank} wrote it: only that rank holds the new version. */
    void written(final int rank)
    {
        version++;
        held[rank] = version;
    }

    /** A scratch use left it undefined everywhere. */
    void scratched()
    {
        version++;
    }
}
