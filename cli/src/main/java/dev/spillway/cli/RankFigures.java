package dev.spillway.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.spillway.checkpoint.CheckpointReport;
import dev.spillway.kernels.RunResult;
import dev.spillway.memory.ByteUnits;
import dev.spillway.ranks.RankProtocol;
import dev.spillway.ranks.RankStats;
import dev.spillway.rdma.Collectives;
import dev.spillway.rdma.Transport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One rank's figures of a distributed run, gathered on every rank after it.
 *
 * @param rank          the rank.
 * @param incarnation   the incarnation that finished the job (0: it never started again).
 * @param rolledBack    whether that incarnation resumed from a checkpoint, or started again from the beginning.
 * @param restoredIndex the global cut that incarnation resumed from, or -1 when it started from the beginning.
 * @param timeS         its compute phase (between two job-wide barriers, so equal up to the barrier's skew).
 * @param tasks         tasks it ran.
 * @param bytesRead     NVMe bytes it read in the compute phase.
 * @param bytesWritten  NVMe bytes it wrote in the compute phase.
 * @param sends         objects it sent.
 * @param bytesSent     their bytes.
 * @param receives      objects it received.
 * @param bytesReceived their bytes.
 * @param checkpoints   generations it committed (0 without checkpoints).
 * @param restoreS      time it spent finding and verifying the generation it resumed from, fetching it from its
 *                      buddy included.
 * @param reexecuteS    time it took to redo the tasks its previous incarnation had done after that generation.
 * @param reexecutedTasks tasks its previous incarnation had done after that generation, by the progress it recorded
 *                      once a second (0 when it ran on).
 * @param recoveryS     {@code restoreS + reexecuteS}: what starting again cost this rank (0 when it ran on).
 * @param p2f           its past-to-future logging counts ({@link RankProtocol.Figures#NONE} without it).
 * @param stats         its runtime's counters.
 * @param peakRssBytes  its process's peak resident set by the end of its compute phase (heap, off-heap, code), or
 *                      -1 where the system does not say.
 */
record RankFigures(int rank, int incarnation, boolean rolledBack, long restoredIndex, double timeS, long tasks,
    long bytesRead, long bytesWritten, long sends, long bytesSent, long receives, long bytesReceived, int checkpoints,
    double restoreS, double reexecuteS, long reexecutedTasks, double recoveryS, RankProtocol.Figures p2f,
    RunStats stats, long peakRssBytes)
{
    private static final int GATHER_TAG = 7;
    private static final ObjectMapper MAPPER = new ObjectMapper()
        .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);

    /** @param fetchS time the rank spent fetching its checkpoint from its buddy, counted in its restore. */
    static RankFigures of(final int incarnation, final long restoredIndex, final RunResult r, final RankStats s,
        final CheckpointReport c, final double fetchS, final RankProtocol.Figures p2f, final RunStats stats)
    {
        final double restore = c.restoreSeconds() + fetchS;
        return new RankFigures(s.rank(), incarnation, incarnation > 0, restoredIndex, r.timeSeconds(), s.tasksHere(),
            r.bytesRead(), r.bytesWritten(), s.sends(), s.bytesSent(), s.receives(), s.bytesReceived(), c.committed(),
            restore, c.reexecuteSeconds(), c.reexecutedTasks(), restore + c.reexecuteSeconds(), p2f, stats,
            PeakResident.bytes());
    }

    /** @return every rank's figures, in rank order; a collective. */
    static List<RankFigures> gather(final Transport transport, final RankFigures mine)
    {
        try
        {
            final byte[][] all = Collectives.allGather(transport, GATHER_TAG, MAPPER.writeValueAsBytes(mine), 4096);
            final List<RankFigures> figures = new ArrayList<>(all.length);
            for (final byte[] b : all)
            {
                figures.add(MAPPER.readValue(b, RankFigures.class));
            }
            return figures;
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("gathering the ranks' figures", e);
        }
    }

    /** Adds {@code ranks}, {@code per_rank} and totals to a run's JSON; NVMe bytes become sums over the ranks. */
    static void put(final List<RankFigures> all, final Map<String, Object> out)
    {
        out.put("ranks", all.size());
        out.put("bytes_read", all.stream().mapToLong(RankFigures::bytesRead).sum());
        out.put("bytes_written", all.stream().mapToLong(RankFigures::bytesWritten).sum());
        out.put("bytes_transferred", all.stream().mapToLong(RankFigures::bytesSent).sum());
        out.put("transfers", all.stream().mapToLong(RankFigures::sends).sum());
        out.put("per_rank", all.stream().map(f -> MAPPER.convertValue(f, Map.class)).toList());
        final long stamped = all.stream().mapToLong(f -> f.p2f.sent()).sum();
        if (stamped > 0)
        {
            final Map<String, Object> p2f = new LinkedHashMap<>();
            final long logged = all.stream().mapToLong(f -> f.p2f.logged()).sum();
            p2f.put("transfers", stamped);
            p2f.put("logged", logged);
            p2f.put("logged_bytes", all.stream().mapToLong(f -> f.p2f.loggedBytes()).sum());
            p2f.put("logged_share", (double)logged / stamped);
            p2f.put("dependencies", all.stream().mapToLong(f -> f.p2f.dependencies()).sum());
            p2f.put("commits_waiting_for_acks", all.stream().mapToLong(f -> f.p2f.gatedCommits()).sum());
            p2f.put("replayed", all.stream().mapToLong(f -> f.p2f.replayed()).sum());
            p2f.put("replayed_from_logs", all.stream().mapToLong(f -> f.p2f.replayedFromLogs()).sum());
            p2f.put("replayed_from_non_ack", all.stream().mapToLong(f -> f.p2f.replayedFromNonAck()).sum());
            p2f.put("suppressed", all.stream().mapToLong(f -> f.p2f.suppressed()).sum());
            p2f.put("reexecuted_sends", all.stream().mapToLong(f -> f.p2f.reexecutedSends()).sum());
            out.put("p2f", p2f);
        }
    }

    String describe()
    {
        return String.format("rank %d: %d tasks in %.2f s; sent %d objects (%s), received %d (%s); " +
            "NVMe read %s, wrote %s%s%s", rank, tasks, timeS, sends, ByteUnits.format(bytesSent), receives,
            ByteUnits.format(bytesReceived), ByteUnits.format(bytesRead), ByteUnits.format(bytesWritten),
            peakRssBytes < 0 ? "" : "; peak RSS " + ByteUnits.format(peakRssBytes),
            incarnation == 0 ? "" : "; incarnation " + incarnation + ", resumed from " +
            (restoredIndex < 0 ? "the beginning" : "the cut at global index " + restoredIndex));
    }

    static String describe(final List<RankFigures> all)
    {
        final StringBuilder s = new StringBuilder();
        for (final RankFigures f : all)
        {
            s.append("  ").append(f.describe()).append(System.lineSeparator());
        }
        s.append(String.format("  total: %d ranks, %d tasks, %s moved between ranks, NVMe read %s, wrote %s%n",
            all.size(), all.stream().mapToLong(RankFigures::tasks).sum(),
            ByteUnits.format(all.stream().mapToLong(RankFigures::bytesSent).sum()),
            ByteUnits.format(all.stream().mapToLong(RankFigures::bytesRead).sum()),
            ByteUnits.format(all.stream().mapToLong(RankFigures::bytesWritten).sum())));
        final long stamped = all.stream().mapToLong(f -> f.p2f.sent()).sum();
        if (stamped > 0)
        {
            final long logged = all.stream().mapToLong(f -> f.p2f.logged()).sum();
            s.append(String.format("  past-to-future logging: %d of %d transfers logged (%.1f %%, %s), %d " +
                "generation(s) waited for acks before committing%n", logged, stamped, 100.0 * logged / stamped,
                ByteUnits.format(all.stream().mapToLong(f -> f.p2f.loggedBytes()).sum()),
                all.stream().mapToLong(f -> f.p2f.gatedCommits()).sum()));
            final long fromLogs = all.stream().mapToLong(f -> f.p2f.replayedFromLogs()).sum();
            final long fromNonAck = all.stream().mapToLong(f -> f.p2f.replayedFromNonAck()).sum();
            final long suppressed = all.stream().mapToLong(f -> f.p2f.suppressed()).sum();
            final long reexecuted = all.stream().mapToLong(f -> f.p2f.reexecutedSends()).sum();
            if (fromLogs + fromNonAck + suppressed + reexecuted > 0)
            {
                s.append(String.format("  after ranks started again: %d transfer(s) sent again from their logs, %d " +
                    "unacknowledged ones sent again, %d send(s) re-executed, %d of them skipped (their targets held " +
                    "them)%n", fromLogs, fromNonAck, reexecuted, suppressed));
            }
        }
        return s.toString();
    }
}
