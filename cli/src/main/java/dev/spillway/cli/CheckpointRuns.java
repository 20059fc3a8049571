package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.spillway.memory.ByteUnits;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The runs of {@code bench checkpoint}: out-of-core LU with {@code run lu} in one child JVM, or with
 * {@code launch -n R run lu} (the launcher and its ranks together), each under its memory cap ({@link CappedChild}),
 * with its output in {@code LABEL.log} and its figures read back from {@code LABEL.json} in the base directory. Each
 * figure set gains {@code cgroup_peak_bytes}: the most DRAM the capped processes used at once (-1 uncapped).
 */
final class CheckpointRuns
{
    /** The heap of a single run's JVM, and of the launcher's, which its ranks get too. */
    private static final String HEAP = "160m";
    private static final Pattern CRASHPOINT = Pattern.compile("CRASHPOINT \\S+ (\\d+)");

    private final Path base;
    private final int n;
    private final int tile;
    private final String dram;
    private final long budget;
    private final long allowance;
    private final int workers;
    private final double mtbf;
    private final ObjectMapper mapper = new ObjectMapper();

    /**
     * @param base      the directory of spill files, checkpoints, logs and figures.
     * @param n         the single run's LU order.
     * @param dram      the single run's {@code --dram}.
     * @param budget    the budget that makes, for order n; each rank gets it too.
     * @param allowance DRAM allowed to each JVM beyond the budget.
     */
    CheckpointRuns(final Path base, final int n, final int tile, final String dram, final long budget,
        final long allowance, final int workers, final double mtbf)
    {
        this.base = base;
        this.n = n;
        this.tile = tile;
        this.dram = dram;
        this.budget = budget;
        this.allowance = allowance;
        this.workers = workers;
        this.mtbf = mtbf;
    }

    /** @return the cap of a single run (its budget plus the allowance); a job of R ranks gets R times it. */
    long cap()
    {
        return budget + allowance;
    }

    /**
     * Removes the checkpoint directories: before the runs, those an earlier bench left, so that no run resumes from
     * them; after, this bench's (gigabytes each).
     */
    void clearCheckpoints() throws IOException
    {
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(base, "ckpt-*"))
        {
            for (final Path d : dirs)
            {
                Dirs.deleteTree(d);
            }
        }
    }

    /** @return the {@code run} flags that checkpoint into {@code ckpt-NAME} every {@code every} in {@code mode}. */
    List<String> checkpoints(final String name, final String every, final String mode)
    {
        final List<String> args = new ArrayList<>(List.of("--checkpoint-dir", base.resolve("ckpt-" + name).toString(),
            "--checkpoint-every", every, "--checkpoint-mode", mode));
        if ("auto".equals(every))
        {
            args.addAll(List.of("--mtbf", Double.toString(mtbf)));
        }
        return args;
    }

    /** Where {@link #single} kills its run: at the {@code hit}-th reach of crash point {@code point}. */
    record Kill(String point, long hit)
    {
        @Override
        public String toString()
        {
            return point + " (reach " + hit + ")";
        }
    }

    /**
     * Runs {@code run lu} of order n with {@code extra} flags in one JVM under {@link #cap()}. With {@code kill}, kills
     * it with SIGKILL when it reaches that crash point.
     *
     * @return its figures, or null when it was killed.
     */
    JsonNode single(final String label, final List<String> extra, final Kill kill)
        throws IOException, InterruptedException
    {
        final List<String> flags = kill == null ? List.of() : List.of("-Dspillway.crashAt=" + kill.point(),
            "-Dspillway.crashAtHit=" + kill.hit());
        final List<String> cmd = ChildJvm.command(HEAP, flags, lu(label, n, dram));
        cmd.addAll(extra);
        final AtomicLong killed = new AtomicLong(-1);
        System.err.printf("spillway: %-16s ... ", label);
        try (CappedChild child = start(label, cap(), cmd, kill == null ? null : killer(killed)))
        {
            if (kill == null)
            {
                return finish(label, child);
            }
            child.process().waitFor(3600, TimeUnit.SECONDS);
            if (killed.get() < 0)
            {
                throw new IllegalStateException("the run to kill at " + kill + " ended without reaching it; see " +
                    log(label));
            }
            System.err.printf("killed with SIGKILL at %s%n", kill);
            return null;
        }
    }

    /**
     * Runs {@code launch -n RANKS LAUNCH... run lu} of order {@code order} with {@code extra} flags and the single
     * run's budget on each rank, the launcher and its ranks under one cap of {@code ranks} times {@link #cap()}. With
     * {@code killAtCrashPoint}, the rank that prints {@code CRASHPOINT POINT PID} (see {@code launch --crash-at}) is
     * killed with SIGKILL at once, and the figures gain {@code killed_pid}.
     *
     * @return rank 0's figures (of the last incarnation).
     */
    JsonNode ranks(final String label, final int ranks, final int order, final List<String> launch,
        final List<String> extra, final boolean killAtCrashPoint) throws IOException, InterruptedException
    {
        final List<String> args = new ArrayList<>(List.of("launch", "-n", Integer.toString(ranks)));
        args.addAll(launch);
        args.addAll(lu(label, order, Long.toString(budget)));
        args.addAll(extra);
        final AtomicLong killed = new AtomicLong(-1);
        final Consumer<String> lines = killAtCrashPoint ? killer(killed) : null;
        System.err.printf("spillway: %-16s ... ", label);
        final ObjectNode r;
        try (CappedChild child = start(label, ranks * cap(), ChildJvm.command(HEAP, args), lines))
        {
            r = finish(label, child);
        }
        if (killAtCrashPoint && killed.get() < 0)
        {
            throw new IllegalStateException(label + ": no rank reached its crash point, so none was killed; see " +
                log(label));
        }
        return killAtCrashPoint ? r.put("killed_pid", killed.get()) : r;
    }

    /** @return a reader of a child's output that kills, with SIGKILL, the process its crash point names, once. */
    static Consumer<String> killer(final AtomicLong killed)
    {
        return line ->
        {
            final Matcher m = CRASHPOINT.matcher(line);
            if (m.find() && killed.compareAndSet(-1, Long.parseLong(m.group(1))))
            {
                ProcessHandle.of(killed.get()).ifPresent(ProcessHandle::destroyForcibly);
            }
        };
    }

    private CappedChild start(final String label, final long cap, final List<String> cmd,
        final Consumer<String> lines) throws IOException, InterruptedException
    {
        return CappedChild.start("spillway-ckpt-" + ProcessHandle.current().pid() + "-" + label, cap, cmd, log(label),
            lines);
    }

    /** Waits for the child, which must succeed, and reads its figures. */
    private ObjectNode finish(final String label, final CappedChild child) throws IOException, InterruptedException
    {
        final Process p = child.process();
        if (!p.waitFor(3600, TimeUnit.SECONDS) || p.exitValue() != 0 || !Files.exists(result(label)))
        {
            throw new IllegalStateException(label + " run failed; see " + log(label));
        }
        final ObjectNode r = (ObjectNode)mapper.readTree(result(label).toFile());
        r.put("cgroup_peak_bytes", child.peakBytes());
        System.err.printf(Locale.ROOT, "%.2f s after inputs in %.2f s, read %s, wrote %s%s%s%n",
            r.get("time_s").asDouble(), r.path("init_s").asDouble(), ByteUnits.format(r.path("bytes_read").asLong()),
            ByteUnits.format(r.path("bytes_written").asLong()), r.has("checkpoints") ?
            String.format(Locale.ROOT, ", %d checkpoints, held %.3f s", r.get("checkpoints").asInt(),
                r.get("checkpoint_block_s").asDouble()) : "", r.has("recovery") ?
            String.format(Locale.ROOT, ", after a restart that took %.2f s", r.get("recovery").get("recovery_s")
                .get("total").asDouble()) : "");
        return r;
    }

    /** @return the {@code run lu} arguments of order {@code order}, its old figures removed. */
    private List<String> lu(final String label, final int order, final String dramArg) throws IOException
    {
        Files.deleteIfExists(result(label));
        return List.of("run", "lu", "--n", Integer.toString(order), "--tile", Integer.toString(tile), "--dram", dramArg,
            "--workers", Integer.toString(workers), "--dir", base.resolve("spill").toString(), "--json",
            result(label).toString());
    }

    private Path result(final String label)
    {
        return base.resolve(label + ".json");
    }

    private Path log(final String label)
    {
        return base.resolve(label + ".log");
    }
}
