package dev.spillway.cli;

import dev.spillway.ranks.GlobalCheckpoints;
import dev.spillway.resilience.redundancy.RedundancyDegree;
import dev.spillway.resilience.redundancy.RedundancyPlan;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code spillway launch -n N <command ...>}: starts N ranks of {@code spillway <command ...>} on this host, each a
 * JVM with this one's flags ({@link LaunchedJob}). When one rank fails, the others are stopped after a grace period,
 * so a launch never outlives its job. With {@code --max-restarts K}, a job whose ranks stopped for a restart (a rank
 * was lost while checkpoints were on) is relaunched whole, with {@code SPILLWAY_INCARNATION} one higher, up to K
 * times; it resumes from its newest global checkpoint. SIGINT or SIGTERM to the launcher is passed on to every rank
 * as SIGTERM (each cancels its run and removes its spill files); ranks still running after {@link #STOP_MS} are
 * killed, and the launcher exits 130 or 143 once none is left.
 */
@Command(name = "launch", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Start N local ranks of a spillway command (e.g. `launch -n 2 run lu --n 8192`).",
        "To place ranks on several hosts, start `spillway <command>` yourself with SPILLWAY_RANK, SPILLWAY_SIZE, " +
            "SPILLWAY_COORDINATOR (rank 0's host:port) and SPILLWAY_SECRET set; see the README (Slurm, mpirun, ssh)."},
    footer = {"", "Examples:",
        "  spillway launch -n 2 run lu --n 8192 --json lu.json",
        "  spillway launch -n 4 --max-restarts 2 run lu --n 8192 --checkpoint-dir ck --checkpoint-every 500",
        "  spillway launch -n 4 --redundancy 1.5 run lu --n 8192",
        "", "Exit status: 0 when every rank succeeded; else the first failing rank's (75: it stopped for a " +
        "restart, and no restart was left); 130 or 143 after SIGINT or SIGTERM, which stop every rank."})
final class LaunchCommand implements Callable<Integer>
{
    /** How long interrupted ranks get to cancel and clean up (RunCommand's limits, and a JVM exit) before SIGKILL. */
    static final long STOP_MS = RunCommand.CANCEL_MS + RunCommand.REMOVE_MS + 5_000;

    @Spec
    private CommandSpec spec;

    @Option(names = "-n", paramLabel = "N", required = true, description = "Ranks to start.")
    private int ranks;

    @Option(names = "--max-restarts", paramLabel = "K", defaultValue = "0",
        description = "Relaunch every rank, with SPILLWAY_INCARNATION one higher, when the job stopped for a " +
            "restart (a lost rank with run --checkpoint-dir), at most K times (default: ${DEFAULT-VALUE}).")
    private int maxRestarts;

    @Option(names = "--redundancy", paramLabel = "R", defaultValue = "1",
        description = "Replicate the ranks (seed 004's partial redundancy): start ⌈R·N⌉ processes, R from 1 in " +
            "any decimal step (1.5 gives the even ranks a second replica), while the program still sees N ranks. " +
            "Every transfer goes from each replica of its sender to each replica of its receiver, which compares " +
            "the copies and stops on a difference with no strict majority (silent data corruption); a copy " +
            "outvoted by two others is dropped. A replica killed while its rank has another, slot 0 included, is " +
            "taken over: the job runs on, no restart. With run --checkpoint-dir DIR, replica k keeps its " +
            "checkpoints in DIR/replica-k, a rank's replicas compare them at every global cut, a replica outvoted " +
            "by two others is mended from them with no rollback (their cuts block until the vote), and a " +
            "difference of two or the loss of every replica of a rank restarts the job (with --max-restarts) from " +
            "the newest cut all verified. Not yet with --p2f or --buddy (default: ${DEFAULT-VALUE}).")
    private String redundancy = "1";

    @Option(names = "--crash-at", paramLabel = "RANK:POINT[:HIT][@INC]",
        description = "Testing aid: park RANK (a process slot with --redundancy) of incarnation INC (default 0) at " +
            "the HIT-th (default 1) hit of crash point POINT, printing `CRASHPOINT POINT PID` for a test to kill " +
            "it. Repeatable.")
    private List<String> crashAt = new ArrayList<>();

    @Option(names = "--flip-at", paramLabel = "RANK:HIT[@INC]", hidden = true,
        description = "Testing aid: flip one bit of the object RANK's (a process slot with --redundancy) HIT-th " +
            "task wrote, in incarnation INC (default 0), printing `BITFLIP ...`, as a silent memory error would. " +
            "Repeatable.")
    private List<String> flipAt = new ArrayList<>();

    @Option(names = "--lose-disks", paramLabel = "RANK[,RANK...]", split = ",", hidden = true,
        description = "Testing aid: before the first relaunch, delete these ranks' checkpoint directories " +
            "(DIR/rank-R of run --checkpoint-dir DIR) and their records of the global commits (DIR/global-commit " +
            "for rank 0, DIR/global-commit-rank-R), as the loss of their nodes would.")
    private List<Integer> loseDisks = new ArrayList<>();

    @Option(names = "--transport", paramLabel = "KIND",
        description = "How the ranks on this host reach each other: tcp (the default, unless SPILLWAY_TRANSPORT " +
            "says otherwise), UCX with peer error handling, " +
            "which reports a dead peer itself but sends everything over TCP on loopback, a put emulated by its " +
            "target's progress thread; or shm, UCX without it: shared memory and cma, puts truly one-sided, a lost " +
            "rank found by heartbeats alone. Sets SPILLWAY_TRANSPORT for the ranks.")
    private String transport;

    @Parameters(arity = "1..*", paramLabel = "COMMAND", description = "The spillway subcommand and its arguments.")
    private List<String> command;

    @Override
    public Integer call() throws Exception
    {
        if (ranks < 1)
        {
            throw new IllegalArgumentException("-n must be at least 1, got " + ranks);
        }
        if (maxRestarts < 0)
        {
            throw new IllegalArgumentException("--max-restarts must be at least 0, got " + maxRestarts);
        }
        if (transport != null && !List.of("tcp", "shm").contains(transport))
        {
            throw new IllegalArgumentException("--transport '" + transport + "' is not a transport: use tcp (the " +
                "default) or shm");
        }
        if (command.get(0).equals("launch"))
        {
            throw new IllegalArgumentException("launch cannot launch itself");
        }
        final int refused = parseHere();
        if (refused >= 0)
        {
            return refused;
        }
        final RedundancyPlan plan = replication();
        if (plan != null && !loseDisks.isEmpty())
        {
            throw new IllegalArgumentException("--lose-disks names ranks' directories (DIR/rank-R), which a " +
                "replicated job does not have (DIR/replica-k/rank-R)");
        }
        final int processes = plan == null ? ranks : (int)plan.processes();
        final List<CrashSpec> crashes = new ArrayList<>();
        for (final String spec : crashAt)
        {
            crashes.add(CrashSpec.parse(spec, processes));
        }
        for (final String spec : flipAt)
        {
            final String[] f = spec.split("@", 2)[0].split(":");
            if (f.length != 2)
            {
                throw new IllegalArgumentException("--flip-at '" + spec + "': expected RANK:HIT[@INCARNATION], " +
                    "e.g. 1:30");
            }
            crashes.add(CrashSpec.parse(f[0] + ":" + CrashSpec.BIT_FLIP + ":" + f[1] +
                (spec.contains("@") ? spec.substring(spec.indexOf('@')) : ""), processes));
        }
        String recovery = null;
        final boolean partial = command.contains("--p2f");
        int used = 0;
        for (int incarnation = 0; ; incarnation++)
        {
            final LaunchedJob.Outcome outcome = runOnce(new LaunchedJob(processes, incarnation + used, command,
                crashes, recovery, plan).transport(transport), partial ? maxRestarts - incarnation - used : -1);
            used += outcome.relaunches();
            if (outcome.status() == 0 || Interrupts.requested() || !outcome.restartAsked())
            {
                if (outcome.status() != 0 && !outcome.lost().isEmpty() && maxRestarts > 0)
                {
                    System.err.println("spillway launch: not relaunched: rank " + outcome.lost() + " failed by " +
                        "itself, not by a signal, and would fail again");
                }
                return outcome.status();
            }
            if (incarnation + used >= maxRestarts)
            {
                System.err.println("spillway launch: the job stopped for a restart, but " + (maxRestarts == 0 ?
                    "--max-restarts is 0" : "all " + maxRestarts + " restarts (--max-restarts) are used"));
                return outcome.status();
            }
            if (incarnation == 0)
            {
                loseDisks();
            }
            final long now = System.currentTimeMillis();
            recovery = outcome.recovery(now);
            final String lost = outcome.lost().isEmpty() ? "none (a rank stopped for a restart: a checkpoint " +
                "failed, or replicas differed)" : (plan == null ? "rank " : "slot ") + outcome.lost();
            System.err.println("spillway launch: relaunching all " + (plan == null ? ranks + " ranks" : processes +
                " processes") + " as incarnation " + (incarnation + 1) + " (restart " + (incarnation + 1) +
                " of at most " + maxRestarts + "); lost: " + lost);
        }
    }

    /**
     * @return the plan of {@code --redundancy}, or null for none; says how many processes serve the ranks.
     * @throws IllegalArgumentException for a degree below 1 or a command replication cannot run yet.
     */
    private RedundancyPlan replication()
    {
        final RedundancyDegree degree = RedundancyDegree.parse(redundancy);
        if (degree.floor() == 1 && degree.ceil() == 1)
        {
            return null;
        }
        for (final String refused : List.of("--p2f", "--buddy"))
        {
            if (command.stream().anyMatch(a -> a.equals(refused) || a.startsWith(refused + "=")))
            {
                throw new IllegalArgumentException("--redundancy keeps each replica's checkpoints apart and compares " +
                    "them at every cut; the command's " + refused + " is not supported with it yet");
            }
        }
        final RedundancyPlan plan = RedundancyPlan.of(ranks, degree);
        System.err.println("spillway launch: redundancy " + degree + ": " + plan.processes() + " processes for " +
            ranks + " ranks (" + plan.ceilRanks() + " with " + degree.ceil() + " replicas" + (plan.floorRanks() == 0 ?
            "" : ", " + plan.floorRanks() + " with " + degree.floor()) + "), all on this host");
        return plan;
    }

    /** Deletes the checkpoint directories {@code --lose-disks} names. */
    private void loseDisks() throws IOException
    {
        if (loseDisks.isEmpty())
        {
            return;
        }
        String root = null;
        for (int i = 0; i < command.size(); i++)
        {
            if (command.get(i).equals("--checkpoint-dir") && i + 1 < command.size())
            {
                root = command.get(i + 1);
            }
            else if (command.get(i).startsWith("--checkpoint-dir="))
            {
                root = command.get(i).substring("--checkpoint-dir=".length());
            }
        }
        if (root == null)
        {
            throw new IllegalArgumentException("--lose-disks deletes checkpoint directories: the ranks' command has " +
                "no --checkpoint-dir DIR");
        }
        for (final int rank : loseDisks)
        {
            final Path dir = Path.of(root).resolve("rank-" + rank);
            final Path record = rank == 0 ? Path.of(root).resolve(GlobalCheckpoints.RECORD) :
                GlobalCheckpoints.rankRecord(Path.of(root), rank);
            Dirs.deleteTree(dir);
            Files.deleteIfExists(record);
            System.err.println("spillway launch: simulating the loss of rank " + rank + "'s node: deleted " + dir +
                " and " + record);
        }
    }

    /**
     * Parses the ranks' command in this process first, so that arguments every rank would refuse are reported once,
     * as {@code spillway} reports them, and no rank starts.
     *
     * @return the exit status of the refusal, or -1 when the command parses.
     */
    private int parseHere() throws Exception
    {
        final CommandLine ranksCommand = SpillwayCli.commandLine();
        ranksCommand.setOut(spec.commandLine().getOut());
        ranksCommand.setErr(spec.commandLine().getErr());
        final String[] args = command.toArray(new String[0]);
        try
        {
            ranksCommand.parseArgs(args);
            return -1;
        }
        catch (final ParameterException e)
        {
            return ranksCommand.getParameterExceptionHandler().handleParseException(e, args);
        }
    }

    /** @param partial with past-to-future logging, how many ranks may be started again alone; else -1. */
    private static LaunchedJob.Outcome runOnce(final LaunchedJob job, final int partial) throws Exception
    {
        try (Interrupts.Action stop = Interrupts.onInterrupt("stop ranks", STOP_MS + 5_000,
            () -> stop(job.processes())))
        {
            job.start();
            return partial >= 0 ? job.awaitPartial(partial) : job.await();
        }
        finally
        {
            synchronized (job.processes())
            {
                job.processes().forEach(Process::destroyForcibly);
            }
        }
    }

    /** Sends SIGTERM to every rank, waits up to {@link #STOP_MS} for all, then kills those left and reaps them. */
    private static void stop(final List<Process> started)
    {
        final List<Process> processes;
        synchronized (started)
        {
            processes = new ArrayList<>(started);
        }
        processes.forEach(Process::destroy);
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_MS);
        try
        {
            for (final Process p : processes)
            {
                p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            for (final Process p : processes)
            {
                p.destroyForcibly().waitFor(2, TimeUnit.SECONDS);
            }
        }
        catch (final InterruptedException e)
        {
            processes.forEach(Process::destroyForcibly);
        }
    }
}
