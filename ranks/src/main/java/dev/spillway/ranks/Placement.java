package dev.spillway.ranks;

import dev.spillway.Data;
import dev.spillway.Privilege;

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

    /**
     * The placement rule every rank applies identically: a task runs on the owner of the first object it produces
     * contents of, or on the root when it produces none; what it reads moves there first unless held there.
     *
     * @return the rank the task runs on.
     */
    static int runsOn(final Placement[] objects, final Privilege[] privileges, final int root)
    {
        for (int i = 0; i < objects.length; i++)
        {
            if (privileges[i].producesContents())
            {
                return objects[i].owner;
            }
        }
        return root;
    }

    /** @return whether the task at {@code runsOn} must first receive the latest version of object {@code i}. */
    static boolean moves(final Placement[] objects, final Privilege[] privileges, final int i, final int runsOn)
    {
        return privileges[i].readsContents() && !objects[i].heldBy(runsOn);
    }

    /** Records what a task on {@code runsOn} did to its objects' versions. */
    static void ran(final Placement[] objects, final Privilege[] privileges, final int runsOn)
    {
        for (int i = 0; i < objects.length; i++)
        {
            if (privileges[i].producesContents())
            {
                objects[i].written(runsOn);
            }
            else if (privileges[i] == Privilege.SCRATCH)
            {
                objects[i].scratched();
            }
        }
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
