package dev.spillway.resilience.snapshot;

import java.util.ArrayList;
import java.util.List;

/**
 * Judges every complete wave's cut from a {@link Trace} alone (seed note §1.5): a data leg crosses the cut when it
 * is sent before its sender's checkpoint and applied after its receiver's, or the other way round; a get overlaps
 * it when its source checkpoints between its request and its last segment; a get is split when its segments land
 * on both sides of its source's checkpoint. An overlapping get is only recoverable when its request was held by the
 * target's NIC at the target's checkpoint, so that the snapshot holds it; otherwise it is also reported as unheld.
 */
final class CutChecker
{
    enum Finding
    {
        CROSSING, OVERLAP, SPLIT, UNHELD_OVERLAP
    }

    private CutChecker()
    {
    }

    /** @return one line per finding, each starting with the finding's name and a colon. */
    static List<String> check(final Trace trace)
    {
        final List<String> findings = new ArrayList<>();
        for (final int wave : trace.completeWaves())
        {
            final long[] cut = trace.checkpoints.get(wave);
            for (final Trace.Leg leg : trace.legs)
            {
                if (leg.sentAt < cut[leg.source] != leg.appliedAt < cut[leg.target])
                {
                    findings.add(Finding.CROSSING + ": wave " + wave + " " + leg + ", checkpoints " + leg.source
                        + "@" + cut[leg.source] + " " + leg.target + "@" + cut[leg.target]);
                }
            }
            for (final Trace.Get get : trace.gets)
            {
                final long c = cut[get.source];
                if (get.requestedAt < c && get.doneAt > c)
                {
                    findings.add(Finding.OVERLAP + ": wave " + wave + " " + get + ", checkpoint " + get.source + "@"
                        + c);
                    final long held = cut[get.target];
                    if (!(get.arrivedAt < held && get.servedAt > held))
                    {
                        findings.add(Finding.UNHELD_OVERLAP + ": wave " + wave + " " + get + ", target checkpoint@"
                            + held);
                    }
                }
                final long before = get.segments.stream().filter(s -> s.appliedAt < c).count();
                if (before > 0 && before < get.segments.size())
                {
                    findings.add(Finding.SPLIT + ": wave " + wave + " " + get + ", " + before + " of "
                        + get.segments.size() + " segments before checkpoint@" + c);
                }
            }
        }
        return findings;
    }
}
