package dev.spillway.cli;

import dev.spillway.ranks.RankProtocol;
import dev.spillway.rdma.Transport;
import dev.spillway.resilience.p2f.EpochPlan;
import dev.spillway.resilience.p2f.P2fOptions;
import dev.spillway.resilience.p2f.P2fProtocol;
import picocli.CommandLine;

/** {@code run --p2f}: the past-to-future protocol of one rank, with aligned cuts every N global submissions. */
final class P2fRun
{
    private P2fRun()
    {
    }

    /**
     * @param clusters {@code --clusters}.
     * @param every    {@code --checkpoint-every N}: the aligned cut interval.
     * @return this rank's protocol.
     * @throws CommandLine.ParameterException for a cluster count the job cannot have.
     */
    static RankProtocol protocol(final CommandLine cli, final Transport transport, final int clusters,
        final long every)
    {
        final EpochPlan plan;
        try
        {
            plan = EpochPlan.aligned(transport.size(), clusters, every);
        }
        catch (final IllegalArgumentException e)
        {
            throw new CommandLine.ParameterException(cli, "--clusters " + clusters + ": " + e.getMessage());
        }
        if (transport.rank() == 0)
        {
            System.err.println("spillway: past-to-future logging on " + plan + "; a transfer from a lower cluster " +
                "to a higher one is logged");
        }
        return new P2fProtocol(transport.rank(), transport.size(), plan, new P2fOptions(true, false));
    }
}
