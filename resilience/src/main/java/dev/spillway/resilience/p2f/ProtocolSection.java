package dev.spillway.resilience.p2f;

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
}
