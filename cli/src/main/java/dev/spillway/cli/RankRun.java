package dev.spillway.cli;

import dev.spillway.SpillwayConfig;
import dev.spillway.kernels.RunResult;
import dev.spillway.kernels.graph.EngineGraph;
import dev.spillway.ranks.DistributedSpillway;
import dev.spillway.rdma.Transport;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@code run} as one rank of a job ({@code SPILLWAY_RANK} etc. set): the rank runs the graph with the others, then
 * every rank's figures are gathered. Rank 0 prints and writes the summary with per-rank and total figures; the others
 * print their own line.
 */
final class RankRun
{
    private RankRun()
    {
    }

    /**
     * @param config    this rank's runtime.
     * @param dramCheck the budget check, run once the runtime is built.
     * @param verify    whether to verify the result.
     * @param json      the {@code --json} file, or null.
     * @return the exit status: the verdict on rank 0, else 0.
     */
    static int run(final Transport transport, final SpillwayConfig config, final DramCheck dramCheck,
        final RunChecks checks, final RunSummary summary, final boolean verify, final Path json) throws IOException
    {
        final RunResult result;
        final RankFigures figures;
        try (EngineGraph graph = new EngineGraph(new DistributedSpillway(transport, config));
            Interrupts.Action cancel = Interrupts.onInterrupt("cancel", RunCommand.CANCEL_MS, graph::cancel))
        {
            checks.require(dramCheck.problem(graph::dramCharge));
            result = GraphRuns.withProgress(summary.kernel(), graph, "rank " + transport.rank(), verify);
            figures = RankFigures.of(result, graph.rankStats());
        }
        final List<RankFigures> all = RankFigures.gather(transport, figures);
        if (transport.rank() != DistributedSpillway.ROOT)
        {
            System.err.println("spillway: " + figures.describe());
            return 0;
        }
        final Map<String, Object> out = summary.json(result, null);
        RankFigures.put(all, out);
        summary.print(result, null);
        System.out.print(RankFigures.describe(all));
        RunSummary.write(json, out);
        return RunSummary.verdict(result);
    }
}
