package dev.spillway.resilience.redundancy;

/**
 * What one replica's transfers and losses came to ({@link ReplicatedTransport#figures()}).
 *
 * @param copiesSent     physical messages sent: one per live replica of each logical send's target.
 * @param copiesCompared copies received after the first of a logical message and compared with it.
 * @param takeovers      replicas lost while their sphere ran on.
 * @param sdcCoverage    the fraction of logical ranks with two live replicas or more, now.
 */
public record ReplicaFigures(long copiesSent, long copiesCompared, long takeovers, double sdcCoverage)
{
    /** @return one line for a rank's report. */
    public String describe()
    {
        return "copies sent " + copiesSent + ", compared " + copiesCompared + ", takeovers " + takeovers +
            ", sdc_coverage " + String.format("%.2f", sdcCoverage);
    }
}
