package dev.spillway.cli;

import dev.spillway.ranks.RestartNeededException;
import dev.spillway.rdma.CoordinatorPorts;
import dev.spillway.rdma.TransportConfig;
import dev.spillway.resilience.redundancy.RedundancyPlan;
import dev.spillway.resilience.redundancy.Spheres;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One incarnation of a launched job: N rank processes on this host, joined through a fresh rendezvous on loopback
 * with a fresh secret. Rank 0's standard output is the launcher's; everything else is prefixed with its rank on
 * standard error. When one rank fails, the others get {@link #GRACE_MS} to report (a rank that needs a restart
 * exits at once), then are killed.
 */
final class LaunchedJob
{
    /** A rank prints this, with the time it learnt of the loss, before it exits for a restart. */
    static final Pattern RESTART_LINE = Pattern.compile("restart needed, detected_ms=(\\d+)");
    /**
     * What UCX's Java binding logs for each request a lost peer failed, several per loss: the rank reports the loss
     * itself in one line, so the launcher drops these.
     */
    private static final Pattern UCX_REQUEST_ERROR = Pattern.compile("UCX\\s+ERROR\\s+JUCX: request error");
    /** The variable that tells a relaunched rank how it was recovered: lost ranks and the times of the steps. */
    static final String RECOVERY_ENV = "SPILLWAY_RECOVERY";
    private static final long GRACE_MS = 15_000;
    /** A process killed by signal S exits with 128 + S. */
    private static final int SIGNAL_BASE = 128;

    private final int ranks;
    private final int incarnation;
    private final List<String> command;
    private final List<CrashSpec> crashes;
    private final String recovery;
    private final List<Process> processes = new ArrayList<>();
    private final List<Thread> pumps = new ArrayList<>();
    private final AtomicLong detectedMillis = new AtomicLong(Long.MAX_VALUE);
    private final AtomicLongArray exitMillis;
    private final List<CompletableFuture<Void>> exits = new ArrayList<>();
    private String secret;
    private String coordinator;
    /** A replicated job's plan, or null. */
    private final RedundancyPlan plan;
    /** A replicated job's live replicas, updated as processes exit; null without replication. */
    private final Spheres spheres;
    /** The ranks' {@link RankEnvironment#TRANSPORT_ENV}, or null to leave this process's. */
    private String transport;

    /** @param recovery the {@link #RECOVERY_ENV} value for a relaunch, or null for the first launch. */
    LaunchedJob(final int ranks, final int incarnation, final List<String> command, final List<CrashSpec> crashes,
        final String recovery)
    {
        this(ranks, incarnation, command, crashes, recovery, null);
    }

    /**
     * @param ranks processes to start: {@code plan.processes()} for a replicated job.
     * @param plan  a replicated job's plan (process slots run the replicas of its logical ranks), or null.
     */
    LaunchedJob(final int ranks, final int incarnation, final List<String> command, final List<CrashSpec> crashes,
        final String recovery, final RedundancyPlan plan)
    {
        this.plan = plan;
        this.spheres = plan == null ? null : new Spheres(plan.place(Collections.nCopies(ranks, "localhost")));
        this.ranks = ranks;
        this.incarnation = incarnation;
        this.command = command;
        this.crashes = crashes;
        this.recovery = recovery;
        this.exitMillis = new AtomicLongArray(ranks);
    }

    /** Sets {@link RankEnvironment#TRANSPORT_ENV} for the ranks: {@code tcp} or {@code shm}. @return this */
    LaunchedJob transport(final String kind)
    {
        this.transport = kind;
        return this;
    }

    /** @return the processes started so far, for an interrupt to stop; guarded by the list itself. */
    List<Process> processes()
    {
        return processes;
    }

    /** Starts every rank (unless interrupted meanwhile) and prints each one's pid and incarnation. */
    void start() throws IOException, GeneralSecurityException
    {
        secret = HexFormat.of().formatHex(SecureRandom.getInstanceStrong().generateSeed(32));
        coordinator = "127.0.0.1:" + CoordinatorPorts.freeLoopback().getPort();
        for (int r = 0; r < ranks; r++)
        {
            if (!startRank(r, incarnation))
            {
                return;
            }
        }
    }

    /** @return false if interrupted before it started. */
    private boolean startRank(final int r, final int rankIncarnation) throws IOException
    {
        final String heap = Runtime.getRuntime().maxMemory() / (1 << 20) + "m";
        final ProcessBuilder pb = new ProcessBuilder(ChildJvm.command(heap, CrashSpec.flags(crashes, r,
            rankIncarnation), command));
        pb.environment().put(TransportConfig.RANK_ENV, Integer.toString(r));
        pb.environment().put(TransportConfig.SIZE_ENV, Integer.toString(ranks));
        pb.environment().put(TransportConfig.COORDINATOR_ENV, coordinator);
        pb.environment().put(TransportConfig.SECRET_ENV, secret);
        pb.environment().put(RankEnvironment.INCARNATION_ENV, Integer.toString(rankIncarnation));
        if (plan != null)
        {
            pb.environment().put(RankEnvironment.REDUNDANCY_ENV, plan.degree().toString());
            pb.environment().put(RankEnvironment.LOGICAL_RANKS_ENV, Integer.toString(plan.ranks()));
        }
        if (recovery != null)
        {
            pb.environment().put(RECOVERY_ENV, recovery);
        }
        if (transport != null)
        {
            pb.environment().put(RankEnvironment.TRANSPORT_ENV, transport);
        }
        pb.environment().putIfAbsent("UCX_NET_DEVICES", "lo");
        pb.environment().putIfAbsent("UCX_LOG_LEVEL", "error");
        final Process p;
        synchronized (processes)
        {
            if (Interrupts.requested())
            {
                return false;
            }
            p = pb.start();
            if (r < processes.size())
            {
                processes.set(r, p);
            }
            else
            {
                processes.add(p);
            }
        }
        final CompletableFuture<Void> exit = p.onExit().thenRun(() -> exitMillis.set(r, System.currentTimeMillis()));
        if (r < exits.size())
        {
            exits.set(r, exit);
        }
        else
        {
            exits.add(exit);
        }
        System.err.println("spillway launch: " + name(r) + " pid " + p.pid() + " incarnation " + rankIncarnation);
        final String prefix = spheres == null ? "[rank " + r + "] " : "[slot " + r + "] ";
        final boolean toOut = r == 0;
        pumps.add(pump(p.getInputStream(), () -> toOut ? System.out : System.err, toOut ? "" : prefix));
        pumps.add(pump(p.getErrorStream(), () -> System.err, prefix));
        return true;
    }

    /**
     * With past-to-future logging: waits for every rank, starting again alone each rank other than 0 that was
     * killed or stopped to roll back, as its next incarnation, while the others run on; at most {@code maxRestarts}
     * such relaunches. Any other failure, or rank 0's loss (it hosts the rendezvous), ends the incarnation as
     * {@link #await} does: the job is then relaunched whole.
     *
     * @return how the incarnation ended; its {@code relaunches} says how many ranks were started again alone.
     */
    Outcome awaitPartial(final int maxRestarts) throws InterruptedException, IOException
    {
        final int[] incarnations = new int[ranks];
        Arrays.fill(incarnations, incarnation);
        int relaunches = 0;
        while (true)
        {
            boolean running = false;
            for (final int r : byExit())
            {
                final Process p;
                synchronized (processes)
                {
                    p = processes.get(r);
                }
                if (p.isAlive())
                {
                    running = true;
                    continue;
                }
                final int s = p.exitValue();
                if (s == 0)
                {
                    continue;
                }
                if (r == 0 || relaunches >= maxRestarts || Interrupts.requested() ||
                    s != RestartNeededException.EXIT_STATUS && s <= SIGNAL_BASE)
                {
                    if (r != 0 && relaunches >= maxRestarts)
                    {
                        System.err.println("spillway launch: rank " + r + " stopped, but all " + maxRestarts +
                            " restarts (--max-restarts) are used");
                    }
                    killRelaunchedAlone(incarnations);
                    return await();
                }
                relaunches++;
                incarnations[r] = Arrays.stream(incarnations).max().getAsInt() + 1;
                System.err.println("spillway launch: rank " + r + " exited with status " + s + describe(s) +
                    "; relaunching it alone as incarnation " + incarnations[r] + " (restart " + relaunches +
                    " of at most " + maxRestarts + "), the others run on");
                exits.get(r).join();
                if (!startRank(r, incarnations[r]))
                {
                    return await();
                }
                running = true;
            }
            if (!running)
            {
                return outcome(0).withRelaunches(relaunches);
            }
            Thread.sleep(50);
        }
    }

    /**
     * @return the ranks, those that exited first in the order they did, then the rest by index: a rank lost first is
     *         started again first, so incarnations follow the losses whichever rank the poll reaches first.
     */
    private List<Integer> byExit()
    {
        final long[] exited = new long[ranks];
        final List<Integer> order = new ArrayList<>(ranks);
        for (int r = 0; r < ranks; r++)
        {
            final Process p;
            synchronized (processes)
            {
                p = processes.get(r);
            }
            exited[r] = p.isAlive() ? Long.MAX_VALUE : exitedAt(r);
            order.add(r);
        }
        order.sort(Comparator.comparingLong(r -> exited[r]));
        return order;
    }

    /** @return when rank {@code r}, which is no longer alive, exited (its exit callback has run once this returns). */
    private long exitedAt(final int r)
    {
        exits.get(r).join();
        return exitMillis.get(r);
    }

    /**
     * The job restarts whole: a rank started again alone has nothing to report (it restores a checkpoint and may still
     * be joining the rank 0 that is gone), so it is killed at once instead of after the grace period.
     */
    private void killRelaunchedAlone(final int[] incarnations)
    {
        for (int r = 0; r < ranks; r++)
        {
            final Process p;
            synchronized (processes)
            {
                p = processes.get(r);
            }
            if (incarnations[r] != incarnation && p.isAlive())
            {
                System.err.println("spillway launch: killing rank " + r + ", started again alone: the job restarts " +
                    "whole");
                p.destroyForcibly();
            }
        }
    }

    /**
     * Waits for every rank; once one fails, gives the rest the grace period to report, then kills them.
     *
     * @return how the incarnation ended.
     */
    Outcome await() throws InterruptedException
    {
        int status = 0;
        long deadline = Long.MAX_VALUE;
        final boolean[] reported = new boolean[processes.size()];
        int running = processes.size();
        while (running > 0)
        {
            running = 0;
            for (int r = 0; r < processes.size(); r++)
            {
                final Process p = processes.get(r);
                if (p.isAlive())
                {
                    running++;
                    continue;
                }
                if (!reported[r])
                {
                    reported[r] = true;
                    if (p.exitValue() != 0 && takenOver(r, p.exitValue()))
                    {
                        continue;
                    }
                    if (p.exitValue() != 0 && status == 0)
                    {
                        status = p.exitValue();
                        System.err.println("spillway launch: " + name(r) + " exited with status " + status +
                            describe(status) + "; stopping the others within " + GRACE_MS / 1000 + " s");
                        deadline = System.currentTimeMillis() + GRACE_MS;
                    }
                }
            }
            if (running > 0 && System.currentTimeMillis() > deadline)
            {
                for (int r = 0; r < processes.size(); r++)
                {
                    if (processes.get(r).isAlive())
                    {
                        System.err.println("spillway launch: killing " + name(r));
                        processes.get(r).destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    }
                }
                break;
            }
            if (running > 0)
            {
                Thread.sleep(50);
            }
        }
        for (final Thread t : pumps)
        {
            t.join(5_000);
        }
        return outcome(status);
    }

    /**
     * In a replicated job, a replica that was killed or stopped on differing copies is taken over while its sphere
     * has another live replica: the job runs on.
     *
     * @return whether slot {@code r}'s exit was taken over.
     */
    private boolean takenOver(final int r, final int status)
    {
        if (spheres == null || status <= SIGNAL_BASE && status != RankRun.MISMATCH_EXIT_STATUS ||
            spheres.lost(r) != Spheres.Loss.TAKEN_OVER)
        {
            return false;
        }
        System.err.println("spillway launch: " + name(r) + " exited with status " + status + describe(status) +
            "; replicas " + spheres.live(spheres.rankOf(r)) + " run on " +
            "(takeover: no restart), sdc_coverage now " + String.format("%.2f", spheres.sdcCoverage()));
        return true;
    }

    /** @return how the launcher names process {@code r}: a rank, or a replicated job's slot and its rank. */
    private String name(final int r)
    {
        return spheres == null ? "rank " + r : "slot " + r + " (rank " + spheres.rankOf(r) + "'s replica)";
    }

    private Outcome outcome(final int status) throws InterruptedException
    {
        final List<Integer> lost = new ArrayList<>();
        boolean restartAsked = false;
        boolean crashedOnly = true;
        long died = Long.MAX_VALUE;
        for (int r = 0; r < processes.size(); r++)
        {
            final Process p = processes.get(r);
            p.waitFor();
            exits.get(r).join();
            final int s = p.exitValue();
            restartAsked |= s == RestartNeededException.EXIT_STATUS;
            if (s != 0 && s != RestartNeededException.EXIT_STATUS)
            {
                lost.add(r);
                // A replica that stopped on differing copies saw a transient fault: a relaunch need not meet it.
                crashedOnly &= s > SIGNAL_BASE || spheres != null && s == RankRun.MISMATCH_EXIT_STATUS;
                died = Math.min(died, exitMillis.get(r));
            }
        }
        return new Outcome(status, restartAsked && crashedOnly, lost, died, detectedMillis.get());
    }

    private static String describe(final int status)
    {
        return status == RestartNeededException.EXIT_STATUS ? " (it stopped for a restart)" :
            status == RankRun.MISMATCH_EXIT_STATUS ? " (it saw silent data corruption: copies or results that differ)" :
            status > SIGNAL_BASE ? " (killed by signal " + (status - SIGNAL_BASE) + ")" : "";
    }

    /** Copies lines of {@code in} to the stream {@code out} names when each is printed (silent after an interrupt). */
    private Thread pump(final InputStream in, final Supplier<PrintStream> out, final String prefix)
    {
        final Thread t = new Thread(() ->
        {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)))
            {
                String line;
                while ((line = r.readLine()) != null)
                {
                    final Matcher m = RESTART_LINE.matcher(line);
                    if (m.find())
                    {
                        detectedMillis.accumulateAndGet(Long.parseLong(m.group(1)), Math::min);
                    }
                    if (shown(line))
                    {
                        out.get().println(prefix + line);
                    }
                }
            }
            catch (final IOException ignored)
            {
                // the rank ended
            }
        }, "spillway-launch-output");
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** @return whether the launcher passes on {@code line} of a rank's output: all but UCX's request errors. */
    static boolean shown(final String line)
    {
        return !UCX_REQUEST_ERROR.matcher(line).find();
    }

    /**
     * How an incarnation ended.
     *
     * @param status         the first failing rank's exit status, or 0.
     * @param restartAsked   whether a rank stopped for a restart and every other failed rank died by a signal (killed
     *                       or crashed): a rank that failed by itself (a task error, a refused restore) would fail
     *                       again, so the job is not relaunched.
     * @param lost           ranks that failed otherwise (killed, crashed).
     * @param diedMillis     when the first of them exited, or {@link Long#MAX_VALUE}.
     * @param detectedMillis when the first rank learnt that the job must restart, or {@link Long#MAX_VALUE}.
     * @param relaunches     ranks started again alone (past-to-future logging).
     */
    record Outcome(int status, boolean restartAsked, List<Integer> lost, long diedMillis, long detectedMillis,
        int relaunches)
    {
        Outcome(final int status, final boolean restartAsked, final List<Integer> lost, final long diedMillis,
            final long detectedMillis)
        {
            this(status, restartAsked, lost, diedMillis, detectedMillis, 0);
        }

        Outcome withRelaunches(final int n)
        {
            return new Outcome(status, restartAsked, lost, diedMillis, detectedMillis, n);
        }

        /** @return the {@link #RECOVERY_ENV} value for the relaunch that starts at {@code relaunchMillis}. */
        String recovery(final long relaunchMillis)
        {
            final StringBuilder s = new StringBuilder("lost=");
            for (int i = 0; i < lost.size(); i++)
            {
                s.append(i == 0 ? "" : ",").append(lost.get(i));
            }
            if (diedMillis != Long.MAX_VALUE)
            {
                s.append(" died_ms=").append(diedMillis);
            }
            if (detectedMillis != Long.MAX_VALUE)
            {
                s.append(" detected_ms=").append(detectedMillis);
            }
            return s.append(" relaunched_ms=").append(relaunchMillis).toString();
        }
    }
}
