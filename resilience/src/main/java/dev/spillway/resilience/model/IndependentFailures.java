package dev.spillway.resilience.model;

import java.util.function.IntToDoubleFunction;

/**
 * {@code P(x)} of eq. 7 for elements that fail independently, each with exponentially distributed lifetimes of mean
 * {@code M}, when failures within a window {@code w} of one another count as concurrent (the time a lost copy takes
 * to be made again). Each failure opens a window; the event has x elements when x − 1 of the others fail in it:
 * <pre>
 *   P(x) = 86400·H/M · Binomial(x − 1; H − 1, 1 − e^(−w/M))   per day
 * </pre>
 * so the events of all sizes add up to the H/M failures per second, and none is counted twice (a window looks
 * forward only). Seed 000 fits {@code P(x)} to a machine's failure log instead; this needs only the MTBF.
 */
public final class IndependentFailures implements IntToDoubleFunction
{
    private static final double SECONDS_PER_DAY = 86_400;

    private final double perDay;
    private final double[] perDayBySize;

    /**
     * @param elements      H.
     * @param mtbfSeconds   M, per element.
     * @param windowSeconds w.
     */
    public IndependentFailures(final int elements, final double mtbfSeconds, final double windowSeconds)
    {
        if (elements < 1 || !(mtbfSeconds > 0 && mtbfSeconds < Double.POSITIVE_INFINITY) ||
            !(windowSeconds >= 0 && windowSeconds < Double.POSITIVE_INFINITY))
        {
            throw new IllegalArgumentException("need elements ≥ 1, a positive MTBF and a window ≥ 0, got " + elements +
                ", " + mtbfSeconds + " s, " + windowSeconds + " s");
        }
        perDay = SECONDS_PER_DAY * elements / mtbfSeconds;
        perDayBySize = new double[elements + 1];
        // log space: ln(1 − p) = −w/M exactly, and (1 − p)^(H−1) may underflow for large H
        final int others = elements - 1;
        final double logSurvive = -windowSeconds / mtbfSeconds;
        final double logFail = Math.log(-Math.expm1(logSurvive));
        double logChoose = 0;
        for (int k = 0; k <= others; k++)
        {
            final double fail = k == 0 ? 0 : k * logFail; // 0·ln 0 is 0 when w = 0
            perDayBySize[k + 1] = perDay * Math.exp(logChoose + fail + (others - k) * logSurvive);
            logChoose += Math.log(others - k) - Math.log(k + 1);
        }
    }

    /** @return failures of any size per day: {@code 86400·H/M}. */
    public double perDay()
    {
        return perDay;
    }

    @Override
    public double applyAsDouble(final int concurrent)
    {
        return concurrent >= 1 && concurrent < perDayBySize.length ? perDayBySize[concurrent] : 0;
    }
}
