package dev.spillway.internal;

import dev.spillway.IoOrder;
import dev.spillway.memory.ByteUnits;
import dev.spillway.memory.DramBudget;
import dev.spillway.memory.Residency;
import dev.spillway.spi.AsyncTaskBody;

import java.util.function.Supplier;

/**
 * Says, for people, what unfinished tasks wait for: one line per task, for {@code describeWaits}, stall reports and a
 * task handle's {@code toString}. Any thread; the figures it quotes are racy snapshots.
 */
final class WaitReports
{
    private final IoAgent agent;
    private final LiveTasks live;
    private final DramBudget budget;
    private final IoOrder order;
    private final int workers;
    private final Quiescence quiescence;
    private final Supplier<String> checkpointWait;
    private final Supplier<String> failures;

    /**
     * @param checkpointWait why a checkpoint generation waits to commit or a requested cut to begin, or null.
     * @param failures   the failures not yet reported, or null when there are none.
     */
    WaitReports(final IoAgent agent, final LiveTasks live, final DramBudget budget, final IoOrder order,
        final int workers, final Quiescence quiescence, final Supplier<String> checkpointWait,
        final Supplier<String> failures)
    {
        this.failures = failures;
        this.checkpointWait = checkpointWait;
        this.agent = agent;
        this.live = live;
        this.budget = budget;
        this.order = order;
        this.workers = workers;
        this.quiescence = quiescence;
    }

    /** @return one line per unfinished task (at most {@code limit}) saying what it waits for. */
    String describeWaits(final int limit)
    {
        final long withoutData = quiescence.incomplete() - live.size();
        final String commit = checkpointWait.get();
        final String failed = failures.get();
        return live.describe(limit) + (withoutData > 0 ? "  " + withoutData +
            " task(s) without data: queued for or running on a worker\n" : "") + (commit == null ? "" : "  " + commit +
            "\n") + (failed == null ? "" : "  " + failed + "\n");
    }

    /** @return what {@code t} waits for, or how it ended. */
    String describe(final TaskRecord t)
    {
        final TaskStatus s = t.status();
        return switch (s)
        {
            case BLOCKED -> "blocked on predecessor(s) " + unfinished(t.predecessors);
            case GATED -> "waiting for " + ((AsyncTaskBody)t.body).gateReason();
            case PENDING -> t.heldBy != null ? t.heldBy : agent.paused() ? "admission paused: call resume()" :
                t.needBytes <= 0 ? "in the " + order.letter() + " admission queue (" + agent.pendingCount() +
                    " task(s)), its DRAM need not yet computed" :
                "waiting for DRAM: needs " + ByteUnits.format(t.needBytes) + ", " +
                    ByteUnits.format(Math.max(0, budget.available())) + " free of " +
                    ByteUnits.format(budget.capacity()) + " (the rest held by running or admitted tasks); " + agent.pendingCount() +
                    " task(s) in the " + order.letter() + " admission queue" + window();
            case FETCHING -> "waiting for data: " + inFlight(t) + "; " + agent.transfersQueued() +
                " transfer(s) queued";
            case READY -> ready(t);
            case RUNNING -> t.body instanceof AsyncTaskBody async ? "started on worker " + t.worker() + " " +
                (System.nanoTime() - t.startedNanos()) / 1_000_000 + " ms ago, waiting for " + async.runningReason() :
                "running on worker " + t.worker() + " for " + (System.nanoTime() - t.startedNanos()) / 1_000_000 +
                    " ms";
            case DONE -> "done";
            case FAILED, CANCELLED -> s.name().toLowerCase() + ": " + t.failure().getMessage();
        };
    }

    private String ready(final TaskRecord t)
    {
        final TaskRecord by = t.handedOverBy;
        return by != null ? "ready, to run next on the worker that runs '" + by.name + "'" :
            "ready, waiting for a free worker (" + workers + " workers)";
    }

    /** @return that the window is full, which holds the queue's head if it must evict, or "". */
    private String window()
    {
        final int window = agent.window();
        final int windowed = agent.windowed();
        return windowed < window ? "" : "; the admission window is full (" + windowed + " admitted task(s) " +
            "unfinished, window " + window + "): a task that must evict waits for one to finish";
    }

    private static String unfinished(final TaskRecord[] preds)
    {
        if (preds == null)
        {
            return "(none left)";
        }
        final StringBuilder sb = new StringBuilder();
        for (final TaskRecord p : preds)
        {
            if (!p.isDone())
            {
                sb.append(sb.length() == 0 ? "" : ", ").append(p).append(' ').append(p.status());
            }
        }
        return sb.length() == 0 ? "(none left)" : sb.toString();
    }

    private static String inFlight(final TaskRecord t)
    {
        final StringBuilder sb = new StringBuilder();
        for (final DataRef r : t.refs)
        {
            final Residency res = r.object.residency();
            if (res != Residency.IN_MEM)
            {
                sb.append(sb.length() == 0 ? "" : ", ").append(r).append(' ').append(res);
            }
        }
        return sb.length() == 0 ? "all objects resident" : sb.toString();
    }
}
