package dev.spillway.cli;

import dev.spillway.kernels.Footprint;
import dev.spillway.kernels.Kernel;
import dev.spillway.memory.ByteUnits;

import java.util.function.IntToLongFunction;

/**
 * The up-front DRAM check of {@code run}: the budget must hold the kernel's largest task plus its pinned objects, each
 * charged as the runtime charges it ({@code Spillway.dramCharge}: whole pages, alignment slack), so a run this check
 * passes is never refused by the engine for want of DRAM. It runs once the runtime is built, before any task.
 *
 * @param kernel   the kernel.
 * @param dram     the {@code --dram} value.
 * @param share    the data a percentage refers to: all of it, or a rank's share.
 * @param budget   the engine's budget: what {@code dram} gave, less {@code reserved}.
 * @param ranks    ranks of the run (1 alone).
 * @param reserved DRAM the run holds outside the engine and charges to the budget (the buddy copy's buffers).
 */
record DramCheck(Kernel kernel, DramSize dram, long share, long budget, int ranks, long reserved)
{
    /** Below this, suggestions are in KiB; above, in MiB. */
    private static final long KIB_SUGGESTIONS_BELOW = 64L << 20;

    /**
     * @param charge the runtime's charge for an object of a size.
     * @return null if the budget suffices, else what is wrong and which {@code --dram} would do.
     */
    String problem(final IntToLongFunction charge)
    {
        final Footprint f = kernel.footprint();
        final Footprint.DramNeed need = f.dramNeed(charge, ranks);
        if (budget >= need.total())
        {
            return null;
        }
        final String parts = need.pinned() == 0 ? " for its largest task (" + f.largestTask().size() + " objects)" :
            ": " + ByteUnits.format(need.task()) + " for its largest task (" + f.largestTask().size() +
                " objects) plus " + ByteUnits.format(need.pinned()) + " of pinned data";
        return String.format("--dram %s%s is too small: %s needs %s of DRAM%s%s, as the runtime charges them (each " +
                "object rounded up to whole pages)%s; use %s or more%s",
            dram, Double.isNaN(dram.percent()) ? "" : " (" + ByteUnits.format(budget + reserved) + ")", kernel.name(),
            ByteUnits.atLeast(need.total()),
            ranks > 1 ? " on a rank" : "", parts, reserved == 0 ? "" : ", plus " + ByteUnits.format(reserved) +
                " for the buddy copy's buffers", suggestion(need.total() + reserved),
            kernel.name().equals("stencil") || reserved >= dram.of(share) ? "" : " (or a smaller --tile)");
    }

    /**
     * @param charge the runtime's charge for an object of a size.
     * @return the least budget that holds the largest task and the pinned data.
     */
    long need(final IntToLongFunction charge)
    {
        return kernel.footprint().dramNeed(charge, ranks).total() + reserved;
    }

    /** @return {@code --dram} values that give at least {@code need}: a percentage if one was given, and bytes. */
    private String suggestion(final long need)
    {
        final String bytes = "--dram " + bytes(need);
        if (Double.isNaN(dram.percent()))
        {
            return bytes;
        }
        double p = Math.ceil(need * 1000.0 / share) / 10;
        while (Math.ceil(share * p / 100.0) < need)
        {
            p = Math.round(p * 10 + 1) / 10.0;
        }
        return p > 100 ? bytes : "--dram " + DramSize.trim(p) + "% (" + bytes(need) + ")";
    }

    /** @return {@code need} rounded up to a size argument: KiB for small budgets, MiB for large ones. */
    static String bytes(final long need)
    {
        return need < KIB_SUGGESTIONS_BELOW ? (need + 1023) / 1024 + "k" : ((need + (1 << 20) - 1) >> 20) + "m";
    }
}
