package dev.spillway.kernels;

/**
 * A lower bound on the bytes a kernel's compute phase must move between a DRAM budget and the store, reads and writes
 * together; 0 where the budget holds the data.
 *
 * @param bytes   the bound.
 * @param formula how it was derived and which schedules it holds for, e.g.
 *                {@code "2n³/√M − 2M words (Smith et al. 2019)"}.
 */
public record IoLowerBound(long bytes, String formula)
{
    /**
     * The red–blue pebble bound of a dense kernel, {@code c·n³/√M − 2M} words of 8 bytes with M the budget in words:
     * the leading term for inputs that start and outputs that end in slow memory, less 2M since here up to M words
     * start in DRAM and up to M stay there. It holds for every schedule of the classical (n³) algorithm.
     *
     * @param c        the leading constant: 2 for a matrix product, 2/3 for LU.
     * @param constant how the formula shows it, e.g. {@code "2"} or {@code "(2/3)"}.
     * @param n        the matrix order.
     * @param budgetBytes the DRAM budget.
     * @param source   the paper that proves it.
     */
    public static IoLowerBound dense(final double c, final String constant, final long n, final long budgetBytes,
        final String source)
    {
        final double m = budgetBytes / (double)Double.BYTES;
        final double words = c * Math.pow(n, 3) / Math.sqrt(m) - 2 * m;
        return new IoLowerBound(words <= 0 ? 0 : (long)(words * Double.BYTES),
            constant + "n³/√M − 2M words (" + source + ")");
    }
}
