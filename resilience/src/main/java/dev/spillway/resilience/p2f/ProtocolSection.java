package dev.spillway.resilience.p2f;

import java.util.Collections;
import java.util.List;
import java.util.NavigableMap;

/**
 * The protocol state a committed generation keeps: the epoch and phase it opens, the sends before its cut with
 * their logs and dependencies, and the receptions before it. Restoring it resumes the protocol at the cut.
 *
 * @param <P> the payload type of logged transfers.
 */
public final class ProtocolSection<P>
{
    final int rank;
    final int epoch;
    final int phase;
    final OutChannel<P>[] out;
    final InChannel[] in;

    ProtocolSection(final int rank, final int epoch, final int phase, final OutChannel<P>[] out, final InChannel[] in)
    {
        this.rank = rank;
        this.epoch = epoch;
        this.phase = phase;
        this.out = out;
        this.in = in;
    }

    /** @return the epoch this generation opens. */
    public int epoch()
    {
        return epoch;
    }

    /** @return the rank whose state this is. */
    public int rank()
    {
        return rank;
    }

    /** @return the phase this generation opens. */
    public int phase()
    {
        return phase;
    }

    /** @return how many ranks the job has. */
    public int ranks()
    {
        return out.length;
    }

    /** @return the transfers to {@code target} before the cut that the generation keeps logged. */
    public List<P> logged(final int target)
    {
        return out[target].log.values().stream().map(OutChannel.Logged::payload).toList();
    }

    /** @return the ssn of the first transfer to {@code target} after the cut. */
    public long nextSsn(final int target)
    {
        return out[target].nextSsn;
    }

    /** @return the last transfer from {@code source} accepted before the cut, or -1. */
    public long lastAccepted(final int source)
    {
        return in[source].last;
    }

    /** @return the dependencies on {@code target}: send epoch to the latest epoch it was received in. */
    public NavigableMap<Integer, Integer> dependencies(final int target)
    {
        return Collections.unmodifiableNavigableMap(out[target].dependencies);
    }
}
