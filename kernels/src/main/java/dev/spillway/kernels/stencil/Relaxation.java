package dev.spillway.kernels.stencil;

/** The arithmetic shared by the task graph and {@link StencilReference}, fixed so that both agree bit for bit. */
final class Relaxation
{
    private static final double SIXTH = 1.0 / 6.0;

    private Relaxation()
    {
    }

    /**
     * @return the new value of a cell: the mean of its six neighbours, summed in this fixed order and scaled by 1/6.
     *         The value just updated in the same row ({@code west}) comes last, so the chain of dependent operations
     *         from one cell to the next is one addition and one multiplication.
     */
    static double update(final double west, final double east, final double south, final double north,
        final double below, final double above)
    {
        return (((((east + north) + below) + above) + south) + west) * SIXTH;
    }

    /** @return the initial value of the grid cell with index {@code cell}: a SplitMix64 hash mapped to [0, 1). */
    static double initial(final long cell)
    {
        long z = cell * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return ((z ^ (z >>> 31)) >>> 11) * 0x1.0p-53;
    }
}
