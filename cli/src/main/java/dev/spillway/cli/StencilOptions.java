package dev.spillway.cli;

import dev.spillway.kernels.stencil.Stencil;

/** Builds the stencil from the command line's options. */
final class StencilOptions
{
    private StencilOptions()
    {
    }

    /**
     * @param grid   cells along x, y, z (default 256³).
     * @param edge   block edge in cells, or null to let {@link Stencil#forGrid} choose blocks of at most 64 MiB.
     */
    static Stencil create(final int[] grid, final Integer edge, final int sweeps, final int steps, final int workers)
    {
        final int[] g = grid == null ? new int[] {256, 256, 256} : grid;
        if (g.length != 3)
        {
            throw new IllegalArgumentException("--grid takes three cell counts X,Y,Z; got " + g.length + " values");
        }
        final long verifyLimit = Math.min(Stencil.DEFAULT_VERIFY_LIMIT, Runtime.getRuntime().maxMemory() / 3);
        if (edge == null)
        {
            final Stencil auto = Stencil.forGrid(g[0], g[1], g[2], workers, sweeps, steps);
            final int[] counts = auto.blockCounts();
            return new Stencil(g[0], g[1], g[2], counts[0], counts[1], counts[2], sweeps, steps, verifyLimit);
        }
        if (edge <= 0)
        {
            throw new IllegalArgumentException("--tile (the stencil's block edge) must be positive, got " + edge);
        }
        return new Stencil(g[0], g[1], g[2], blocks(g[0], edge), blocks(g[1], edge), blocks(g[2], edge), sweeps, steps,
            verifyLimit);
    }

    private static int blocks(final int cells, final int edge)
    {
        return Math.max(1, (cells + edge - 1) / edge);
    }
}
