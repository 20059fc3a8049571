package dev.spillway.kernels;

import dev.spillway.kernels.graph.Home;

import java.util.List;
import java.util.function.IntToLongFunction;

/**
 * The data objects a kernel's up-front checks need, known before anything is declared: those of its largest task, its
 * pinned ones, and the sizes of every object a run may write to the store.
 *
 * @param largestTask the objects of the task with the largest working set.
 * @param pinned      every pinned object.
 * @param stored      the size of every unpinned object that may be written to the store (scratch objects never are).
 */
public record Footprint(List<Item> largestTask, List<Item> pinned, int[] stored)
{
    /**
     * One data object.
     *
     * @param bytes  its size.
     * @param pinned whether it is declared pinned (it stays in DRAM on its home rank).
     * @param home   where it lives when a run spans several ranks.
     */
    public record Item(int bytes, boolean pinned, Home home)
    {
    }

    /** @return an unpinned object of {@code bytes} on rank 0. */
    public static Item object(final int bytes)
    {
        return new Item(bytes, false, Home.ROOT);
    }

    /**
     * What the DRAM budget must hold on the rank that needs most.
     *
     * @param task   the charges of the largest task's objects, but those pinned on that rank.
     * @param pinned the charges of the objects pinned on that rank.
     */
    public record DramNeed(long task, long pinned)
    {
        /** @return the least budget: a task is admitted only if its unpinned objects fit beside the pinned ones. */
        public long total()
        {
            return task + pinned;
        }
    }

    /**
     * @param charge what the runtime charges the budget for an object of a size ({@code Spillway::dramCharge}).
     * @param ranks  the ranks the objects are dealt over by their {@link Home} (1 alone).
     * @return the DRAM needed on the rank that needs most.
     */
    public DramNeed dramNeed(final IntToLongFunction charge, final int ranks)
    {
        DramNeed most = new DramNeed(0, 0);
        for (int rank = 0; rank < ranks; rank++)
        {
            long task = 0;
            for (final Item o : largestTask)
            {
                task += o.pinned && o.home.rank(ranks) == rank ? 0 : charge.applyAsLong(o.bytes);
            }
            long held = 0;
            for (final Item o : pinned)
            {
                held += o.home.rank(ranks) == rank ? charge.applyAsLong(o.bytes) : 0;
            }
            if (task + held > most.total())
            {
                most = new DramNeed(task, held);
            }
        }
        return most;
    }

    /** @return the sum of the largest task's object sizes. */
    public long largestTaskBytes()
    {
        return largestTask.stream().mapToLong(Item::bytes).sum();
    }

    /** @return the sum of the pinned object sizes. */
    public long pinnedBytes()
    {
        return pinned.stream().mapToLong(Item::bytes).sum();
    }
}
