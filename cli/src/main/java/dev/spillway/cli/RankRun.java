package dev.spillway.cli;

import dev.spillway.SpillwayConfig;
import dev.spillway.checkpoint.CheckpointReport;
import dev.spillway.checkpoint.Cut;
import dev.spillway.kernels.RunResult;
import dev.spillway.kernels.graph.EngineGraph;
import dev.spillway.ranks.DistributedSpillway;
import dev.spillway.ranks.GlobalCheckpoints;
import dev.spillway.ranks.RankProtocol;
import dev.spillway.ranks.RecoveryOutcome;
import dev.spillway.ranks.RestartNeededException;
import dev.spillway.rdma.Transport;
import dev.spillway.resilience.redundancy.ReplicaFigures;
import dev.spillway.resilience.redundancy.ReplicaMismatchException;
import dev.spillway.resilience.redundancy.ReplicaResults;
import dev.spillway.resilience.redundancy.ReplicatedTransport;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * {@code run} as one rank of a job ({@code SPILLWAY_RANK} etc. set): the rank runs the graph with the others, then
 * every rank's figures are gathered. Rank 0 prints and writes the summary with per-rank and total figures; the others
 * print their own line. With checkpoints on, a rank that stops because the job lost a rank exits with
 * {@link RestartNeededException#EXIT_STATUS}, after a line {@code restart needed, detected_ms=…} that
 * {@code launch} reads.
 */
final class RankRun
{
    /** A replica exits with this status once copies of a transfer it received, or its sphere's results, differed. */
    static final int MISMATCH_EXIT_STATUS = 76;
    /** Set once this replica leaves its sphere: a run that fails meanwhile exits as the replica's leaving does. */
    private static volatile boolean leaving;

    private RankRun()
    {
    }

    /**
     * A replica that received differing copies cannot tell which is right, or was outvoted at a cut: it says so and
     * exits (on a thread of its own, so the transport's thread is not held by the shutdown), and its sphere's other
     * replicas run on.
     */
    static void stopOnMismatch(final ReplicaMismatchException mismatch)
    {
        leaving = true;
        System.err.println("spillway: " + mismatch.getMessage() + "; this replica stops (exit " +
            MISMATCH_EXIT_STATUS + ")");
        final Thread exit = new Thread(() -> System.exit(MISMATCH_EXIT_STATUS), "spillway-mismatch-exit");
        exit.start();
    }

    /**
     * This replica's result differs from its sphere's majority (or there is none): with checkpoints the job restarts
     * from its newest verified cut; without, the replica leaves, as on differing copies.
     *
     * @return the exit status.
     */
    private static int stopOnResultMismatch(final boolean checkpoints)
    {
        if (checkpoints)
        {
            System.err.println("spillway: this replica stops for a restart from the newest verified cut");
            return restartNeeded(System.currentTimeMillis(), List.of());
        }
        System.err.println("spillway: this replica stops (exit " + MISMATCH_EXIT_STATUS + "); without checkpoints " +
            "the job cannot go back to a verified state");
        return MISMATCH_EXIT_STATUS;
    }

    /** Prints the line the launcher reads a restart from, and returns the restart's exit status. */
    private static int restartNeeded(final long detectedMillis, final List<Integer> lost)
    {
        System.err.println("spillway: restart needed, detected_ms=" + detectedMillis + " lost=" + lost);
        return RestartNeededException.EXIT_STATUS;
    }

    /**
     * @param config      this rank's runtime.
     * @param checkpoints the global checkpoints set on {@code config}, or null.
     * @param protocol    the message-logging protocol, or {@link RankProtocol#NONE}.
     * @param startMillis when this rank finished its rendezvous.
     * @param dramCheck   the budget check, run once the runtime is built.
     * @param verify      whether to verify the result.
     * @param json        the {@code --json} file, or null.
     * @param traceDir    the {@code --trace-p2f} directory, or null.
     * @return the exit status: the verdict on rank 0, else 0; {@link RestartNeededException#EXIT_STATUS} for a
     *         restart.
     */
    static int run(final Transport transport, final SpillwayConfig config, final GlobalCheckpoints checkpoints,
        final RankProtocol protocol, final long startMillis, final DramCheck dramCheck, final RunChecks checks,
        final RunSummary summary, final boolean verify, final Path json, final Path traceDir) throws IOException
    {
        // Open before the runtime: a recovery session may ask for this rank's report as soon as the runtime exists.
        try (P2fTrace trace = traceDir == null ? null : new P2fTrace(traceDir, transport.rank(), transport.size(),
            transport.incarnation()))
        {
            final RunResult result;
            final RankFigures figures;
            final CheckpointReport report;
            final DistributedSpillway runtime = new DistributedSpillway(transport, config, protocol, trace);
            try (EngineGraph graph = new EngineGraph(runtime);
                Interrupts.Action cancel = Interrupts.onInterrupt("cancel", RunCommand.CANCEL_MS, graph::cancel))
            {
                checks.require(dramCheck.problem(graph::dramCharge));
                result = GraphRuns.withRankProgress(summary.kernel(), graph, transport.rank(), verify);
                report = graph.checkpointReport();
                figures = RankFigures.of(transport.incarnation(), checkpoints == null ? Cut.LOCAL :
                    checkpoints.restoredIndex(), result, graph.rankStats(), report,
                    checkpoints == null ? 0 : checkpoints.fetchSeconds(), protocol.figures(),
                    RunStats.of(graph.stats()));
            }
            catch (final RuntimeException e)
            {
                if (leaving)
                {
                    return MISMATCH_EXIT_STATUS;
                }
                final RestartNeededException restart = runtime.restartNeeded();
                if (restart == null)
                {
                    throw e;
                }
                return restartNeeded(restart.detectedMillis(), restart.lostRanks());
            }
            // Taken before the gather: replicas that finished first close their transports meanwhile.
            final ReplicatedTransport replicated = transport instanceof ReplicatedTransport r ? r : null;
            boolean reports = transport.rank() == DistributedSpillway.ROOT;
            if (replicated != null)
            {
                final ReplicaResults.Outcome compared = ReplicaResults.compare(replicated, result.checksum());
                if (compared.difference() != null)
                {
                    System.err.println("spillway: silent data corruption detected at the end of the run: " +
                        compared.difference());
                }
                if (!compared.agrees())
                {
                    return stopOnResultMismatch(checkpoints != null);
                }
                reports &= compared.reports();
            }
            final ReplicaFigures copies = replicated == null ? null : replicated.figures();
            final List<RankFigures> all = RankFigures.gather(transport, figures);
            if (replicated != null)
            {
                System.err.println("spillway: rank " + transport.rank() + " replica " + replicated.replica() +
                    " (slot " + replicated.slot() + "): " + copies.describe());
            }
            if (!reports)
            {
                System.err.println("spillway: " + figures.describe());
                return 0;
            }
            final long restored = checkpoints == null ? 0 : checkpoints.restoredIndex();
            final Map<String, Object> out = summary.json(result, null, restored);
            RankFigures.put(all, out);
            if (replicated != null)
            {
                out.put("replication", copies.json());
            }
            if (checkpoints != null)
            {
                CheckpointSummary.put(report, out);
                out.put("global_checkpoints", checkpoints.globalCommits());
                final Map<String, Object> recovery = Recovery.of(System.getenv(), checkpoints, startMillis, all);
                if (recovery != null)
                {
                    out.put("recovery", recovery);
                }
                final List<RecoveryOutcome> sessions = runtime.recoveryOutcomes();
                if (!sessions.isEmpty())
                {
                    out.put("recovery_sessions", recoverySessions(sessions, transport.size()));
                }
            }
            summary.print(result, null, restored);
            System.out.print(RankFigures.describe(all));
            if (checkpoints != null)
            {
                System.out.print(CheckpointSummary.describe(report));
            }
            RunSummary.write(json, out);
            return RunSummary.verdict(result);
        }
    }

    /** Rank 0's recovery sessions: who was lost, the cut each rank the line named restarts from, who ran on. */
    private static List<Map<String, Object>> recoverySessions(final List<RecoveryOutcome> outcomes, final int ranks)
    {
        final List<Map<String, Object>> sessions = new ArrayList<>();
        for (final RecoveryOutcome o : outcomes)
        {
            final Map<String, Object> s = new LinkedHashMap<>();
            s.put("session", o.session());
            s.put("lost", o.lost());
            final Map<String, Object> back = new LinkedHashMap<>();
            o.rolledBack().forEach((r, cut) -> back.put(Integer.toString(r), cut < 0 ? "start" : cut));
            s.put("rolled_back_to", back);
            s.put("runs_on", IntStream.range(0, ranks).filter(r -> !o.rolledBack().containsKey(r)).boxed().toList());
            s.put("line_s", o.lineSeconds());
            sessions.add(s);
        }
        return sessions;
    }
}
