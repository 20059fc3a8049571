package dev.spillway.kernels.graph;

import dev.spillway.ranks.DistributedSpillway;
import dev.spillway.ranks.Owners;

/**
 * Where a tile lives when a graph spans several ranks: a matrix tile (dealt 2-D block-cyclically), a stencil block
 * (in contiguous slabs), or rank 0. Graphs on one rank ignore it.
 */
public final class Home
{
    /** Rank 0: work buffers of verification and the like. */
    public static final Home ROOT = new Home(Kind.ROOT, 0, 0);

    private enum Kind
    {
        ROOT, BLOCK, SLAB
    }

    private final Kind kind;
    private final int a;
    private final int b;

    private Home(final Kind kind, final int a, final int b)
    {
        this.kind = kind;
        this.a = a;
        this.b = b;
    }

    /** @return the home of matrix tile (row, col). */
    public static Home block(final int row, final int col)
    {
        return new Home(Kind.BLOCK, row, col);
    }

    /** @return the home of block {@code index} of {@code count}, in an order that makes slabs contiguous. */
    public static Home slab(final int index, final int count)
    {
        return new Home(Kind.SLAB, index, count);
    }

    /** @return the owning rank among {@code size}. */
    public int rank(final int size)
    {
        return switch (kind)
        {
            case BLOCK -> Owners.blockCyclic(a, b, size);
            case SLAB -> Owners.slab(a, b, size);
            case ROOT -> DistributedSpillway.ROOT;
        };
    }
}
