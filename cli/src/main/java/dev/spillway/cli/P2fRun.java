package dev.spillway.cli;

import dev.spillway.kernels.Kernel;
import dev.spillway.kernels.graph.ScheduleGraph;
import dev.spillway.ranks.RankProtocol;
import dev.spillway.ranks.TransferSchedule;
import dev.spillway.rdma.Transport;
import dev.spillway.resilience.p2f.EpochPlan;
import dev.spillway.resilience.p2f.P2fOptions;
import dev.spillway.resilience.p2f.P2fProtocol;
import dev.spillway.resilience.p2f.ReplayCopies;
import dev.spillway.resilience.p2f.SentRecord;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.IntStream;

/** {@code run --p2f}: the past-to-future protocol of one rank, with aligned cuts every N global submissions. */
final class P2fRun
{
    private P2fRun()
    {
    }

    /**
     * @return the sizes of the payload copies rank {@code rank} of {@code ranks} keeps when it logs at their send the
     *         transfers {@code plan} says are logged (every one with {@code logAll}), so the store can be sized for
     *         them: its sends in the kernel's schedule, and with {@code logAll} each of its objects once more for the
     *         verification's transfers to rank 0.
     */
    static int[] capturedBytes(final Kernel kernel, final int ranks, final int rank, final EpochPlan plan,
        final boolean logAll)
    {
        final ScheduleGraph graph = new ScheduleGraph(ranks);
        kernel.declare(graph);
        kernel.initialize(graph);
        kernel.compute(graph);
        final TransferSchedule schedule = graph.schedule();
        final IntStream.Builder sizes = IntStream.builder();
        for (int i = 0; i < schedule.transfers(); i++)
        {
            if (schedule.source(i) == rank && (logAll || plan.cluster(rank) < plan.cluster(schedule.target(i))))
            {
                sizes.add((int)schedule.bytes(i));
            }
        }
        if (logAll)
        {
            Arrays.stream(kernel.footprint().stored()).forEach(sizes::add);
        }
        return sizes.build().toArray();
    }

    /**
     * @param clusters {@code --clusters}.
     * @param every    {@code --checkpoint-every N}: the aligned cut interval.
     * @return the job's plan.
     * @throws CommandLine.ParameterException for a cluster count the job cannot have.
     */
    static EpochPlan plan(final CommandLine cli, final int ranks, final int clusters, final long every)
    {
        try
        {
            return EpochPlan.aligned(ranks, clusters, every);
        }
        catch (final IllegalArgumentException e)
        {
            throw new CommandLine.ParameterException(cli, "--clusters " + clusters + ": " + e.getMessage());
        }
    }

    /**
     * @param plan     the job's plan ({@link #plan}).
     * @param logAll   {@code --p2f-log-all}: log every transfer.
     * @param replays  a directory of this rank's on the spill tier for the copies it may send again; the record of
     *                 its sends lies beside it.
     * @return this rank's protocol.
     */
    static RankProtocol protocol(final Transport transport, final EpochPlan plan, final boolean logAll,
        final Path replays) throws IOException
    {
        if (transport.rank() == 0)
        {
            System.err.println("spillway: past-to-future logging on " + plan + (logAll ? "; every transfer is " +
                "logged (--p2f-log-all)" : "; a transfer from a lower cluster to a higher one is logged"));
        }
        return new P2fProtocol(transport.rank(), transport.size(), plan, new P2fOptions(true, logAll),
            ReplayCopies.in(replays), SentRecord.in(replays.resolveSibling("p2f-sent"), transport.size(),
                transport.incarnation() > 0));
    }
}
