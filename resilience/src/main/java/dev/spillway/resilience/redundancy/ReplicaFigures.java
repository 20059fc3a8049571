package dev.spillway.resilience.redundancy;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one replica's transfers and losses came to ({@link ReplicatedTransport#figures()}).
 *
 * @param copiesSent     physical messages sent: one per live replica of each logical send's target.
 * @param copiesCompared copies received after the first of a logical message and compared with it.
 * @param copiesOutvoted copies dropped because they differed from a strict majority of their message's copies.
 * @param takeovers      replicas lost while their sphere ran on.
 * @param sdcCoverage    the fraction of logical ranks with two replicas or more not lost, now (a replica that closed
 *                       at the end of its run is not lost).
 */
public record ReplicaFigures(long copiesSent, long copiesCompared, long copiesOutvoted, long takeovers,
    double sdcCoverage)
{
    /** @return the figures for a run's JSON summary. */
    public Map<String, Object> json()
    {
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("copies_sent", copiesSent);
        out.put("copies_compared", copiesCompared);
        out.put("copies_outvoted", copiesOutvoted);
        out.put("takeovers", takeovers);
        out.put("sdc_coverage", sdcCoverage);
        return out;
    }

    /** @return one line for a rank's report. */
    public String describe()
    {
        return "copies sent " + copiesSent + ", compared " + copiesCompared + ", outvoted " + copiesOutvoted +
            ", takeovers " + takeovers +
            ", sdc_coverage " + String.format("%.2f", sdcCoverage);
    }
}
