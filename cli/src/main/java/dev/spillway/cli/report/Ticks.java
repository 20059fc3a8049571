package dev.spillway.cli.report;

/** Axis tick steps. */
final class Ticks
{
    private Ticks()
    {
    }

    /** @return the smallest of 1, 2 or 5 times a power of ten that is at least {@code rough} (positive). */
    static double niceStep(final double rough)
    {
        final double magnitude = Math.pow(10, Math.floor(Math.log10(rough)));
        for (final double m : new double[] {1, 2, 5})
        {
            if (m * magnitude >= rough * (1 - 1e-9))
            {
                return m * magnitude;
            }
        }
        return 10 * magnitude;
    }
}
