package dev.spillway.resilience.p2f;

import java.util.NavigableMap;
import java.util.TreeMap;

/** One rank's side of a channel it receives on: the last transfer accepted and in which epoch and phase each was. */
final class InChannel
{
    long last = -1;
    /** First ssn accepted in an epoch, to that epoch: answers a duplicate with its original epoch (erratum #7). */
    final NavigableMap<Long, Integer> epochFrom = new TreeMap<>();
    /** First ssn accepted in a phase, to that phase (the paper's RPP). */
    final NavigableMap<Long, Integer> phaseFrom = new TreeMap<>();
    /** Recovery only: orphans still to be sent again, ssn to the phase they were received in. */
    final NavigableMap<Long, Integer> orphans = new TreeMap<>();

    void accept(final long ssn, final int epoch, final int phase)
    {
        if (ssn <= last)
        {
            return;
        }
        last = ssn;
        if (epochFrom.isEmpty() || epochFrom.lastEntry().getValue() != epoch)
        {
            epochFrom.put(ssn, epoch);
        }
        if (phaseFrom.isEmpty() || phaseFrom.lastEntry().getValue() != phase)
        {
            phaseFrom.put(ssn, phase);
        }
    }

    int epochOf(final long ssn)
    {
        return epochFrom.floorEntry(ssn).getValue();
    }

    int phaseOf(final long ssn)
    {
        return phaseFrom.floorEntry(ssn).getValue();
    }

    /** @return the receptions before ssn {@code limit}. */
    InChannel keptBefore(final long limit)
    {
        final InChannel kept = new InChannel();
        kept.last = Math.min(last, limit - 1);
        kept.epochFrom.putAll(epochFrom.headMap(limit, false));
        kept.phaseFrom.putAll(phaseFrom.headMap(limit, false));
        return kept;
    }

    InChannel copy()
    {
        final InChannel copy = new InChannel();
        copy.last = last;
        copy.epochFrom.putAll(epochFrom);
        copy.phaseFrom.putAll(phaseFrom);
        return copy;
    }
}
