package dev.spillway.cli;

import dev.spillway.kernels.Kernel;
import dev.spillway.kernels.blas.TileBlas;
import dev.spillway.kernels.dense.Gemm;
import dev.spillway.kernels.dense.Lu;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The problem options shared by {@code run} and {@code bench kernels}, and the kernel they describe. */
final class KernelOptions
{
    @Option(names = "--n", paramLabel = "N", description = "Matrix order for matmul and lu (default: matmul 4096, " +
        "lu 6144); a multiple of --tile.")
    Integer n;

    @Option(names = "--grid", paramLabel = "X,Y,Z", split = ",", description = "Stencil grid in cells " +
        "(default: 256,256,256).")
    int[] grid;

    @Option(names = "--tile", paramLabel = "T", description = "Tile edge for matmul and lu (default: 512); block " +
        "edge for the stencil (default: chosen from the grid).")
    Integer tile;

    @Option(names = "--sweeps", paramLabel = "S", defaultValue = "20",
        description = "Stencil: Gauss-Seidel sweeps inside a block per step (default: ${DEFAULT-VALUE}).")
    int sweeps;

    @Option(names = "--steps", paramLabel = "K", defaultValue = "4",
        description = "Stencil: steps, each sweeping every block (default: ${DEFAULT-VALUE}).")
    int steps;

    @Option(names = "--pivoting", description = "LU with partial pivoting on a general matrix (default: no " +
        "pivoting on a diagonally dominant one). Needs a budget of two tile columns.")
    boolean pivoting;

    /**
     * @return the kernel; {@code budgetBytes}, each of {@code ranks}' budget, only shapes the order (matmul's C
     *         blocks, LU's column blocks).
     */
    Kernel create(final String kernel, final TileBlas blas, final long budgetBytes, final int workers,
        final int ranks)
    {
        switch (kernel)
        {
            case "matmul":
            {
                final int order = n == null ? 4096 : n;
                final int t = tile == null ? 512 : tile;
                requireDense(order, t);
                return new Gemm(order, t, Gemm.blockFor(budgetBytes, order, t, ranks), blas);
            }
            case "lu":
            {
                final int order = n == null ? 6144 : n;
                final int t = tile == null ? 512 : tile;
                requireDense(order, t);
                return new Lu(order, t, Lu.widthFor(budgetBytes, order, t, pivoting, ranks), pivoting, blas);
            }
            case "stencil":
                return StencilOptions.create(grid, tile, sweeps, steps, workers);
            default:
                throw new IllegalArgumentException("unknown kernel '" + kernel + "': use matmul, lu or stencil");
        }
    }

    private static void requireDense(final int order, final int t)
    {
        if (order <= 0 || t <= 0)
        {
            throw new IllegalArgumentException("--n " + order + " and --tile " + t + " must be positive");
        }
        if (order % t != 0)
        {
            throw new IllegalArgumentException("--n " + order + " is not a multiple of --tile " + t +
                " (ragged tiles are not supported): try --n " + Math.max(t, order / t * t) + " or --n " +
                (order / t + 1) * t);
        }
    }

    /** @return the kernel-specific default policy: p,s,d for LU (left-looking), a,s,d otherwise. */
    static String defaultPolicy(final String kernel)
    {
        return "lu".equals(kernel) ? "p,s,d" : "a,s,d";
    }

    /** Rejects options that do not apply to {@code kernel}. */
    void check(final String kernel, final picocli.CommandLine cmd)
    {
        final boolean stencil = "stencil".equals(kernel);
        if (stencil && n != null)
        {
            throw new ParameterException(cmd, "--n does not apply to the stencil: use --grid X,Y,Z");
        }
        if (!stencil && grid != null)
        {
            throw new ParameterException(cmd, "--grid applies to the stencil only: use --n for " + kernel);
        }
        if (!"lu".equals(kernel) && pivoting)
        {
            throw new ParameterException(cmd, "--pivoting applies to lu only");
        }
    }
}
