package dev.spillway.ranks;

import dev.spillway.resilience.RunChild;
import dev.spillway.cli.SpillwayCli;
import dev.spillway.rdma.TransportConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One rank (or a lone run) in a child JVM, optionally inside a network namespace: the current {@code java}, the test
 * class path and this JVM's flags (as in the resilience tests' {@code RunChild}), the pure-Java BLAS, and the job
 * named by SPILLWAY_RANK/SIZE/COORDINATOR/SECRET. Standard output and error go to separate files.
 */
final class RankChild
{
    static final String SECRET = "ranks-test-secret-0123456789abcdef";

    private final String name;
    private final String mainClass;
    private final List<String> args;
    private static final Pattern CRASHPOINT = Pattern.compile("CRASHPOINT (\\S+) (\\d+)");
    private static final Pattern LAUNCHED = Pattern.compile("spillway launch: rank (\\d+) pid (\\d+) incarnation");
    private final List<String> prefix = new ArrayList<>();
    private final List<String> properties = new ArrayList<>();
    private final Map<String, String> env = new LinkedHashMap<>();
    private Path out;
    private Path err;
    private Process process;

    private RankChild(final String name, final String mainClass, final List<String> args)
    {
        this.name = name;
        this.mainClass = mainClass;
        this.args = List.copyOf(args);
    }

    /** @return {@code spillway args...}. */
    static RankChild cli(final String name, final List<String> args)
    {
        return new RankChild(name, SpillwayCli.class.getName(), args);
    }

    /** @return {@code main.main(args)}. */
    static RankChild main(final String name, final Class<?> main, final List<String> args)
    {
        return new RankChild(name, main.getName(), args);
    }

    /** Runs the child inside {@code namespace} through {@code ip netns exec}. */
    RankChild in(final String namespace)
    {
        prefix.addAll(NetnsPair.exec(namespace));
        return this;
    }

    /** Makes the child rank {@code rank} of {@code size}, meeting at {@code coordinator} ({@code host:port}). */
    RankChild rank(final int rank, final int size, final String coordinator)
    {
        env.put(TransportConfig.RANK_ENV, Integer.toString(rank));
        env.put(TransportConfig.SIZE_ENV, Integer.toString(size));
        env.put(TransportConfig.COORDINATOR_ENV, coordinator);
        env.put(TransportConfig.SECRET_ENV, SECRET);
        return this;
    }

    RankChild env(final String key, final String value)
    {
        env.put(key, value);
        return this;
    }

    RankChild property(final String key, final String value)
    {
        properties.add("-D" + key + "=" + value);
        return this;
    }

    /** Starts the child; a child not given {@link #rank} runs alone, whatever this JVM's environment says. */
    RankChild start(final Path dir) throws IOException
    {
        out = dir.resolve(name + ".out");
        err = dir.resolve(name + ".err");
        final List<String> command = new ArrayList<>(prefix);
        command.addAll(RunChild.java(properties, mainClass));
        command.addAll(args);
        final ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        final Map<String, String> e = pb.environment();
        for (final String k : List.of(TransportConfig.RANK_ENV, TransportConfig.SIZE_ENV,
            TransportConfig.COORDINATOR_ENV, TransportConfig.SECRET_ENV, "UCX_NET_DEVICES", "UCX_TLS"))
        {
            e.remove(k);
        }
        e.put("OPENBLAS_NUM_THREADS", "1");
        e.putAll(env);
        process = pb.start();
        return this;
    }

    /** Waits up to {@code limit} for the child to end; returns its exit status, or fails naming the hang. */
    int await(final Duration limit) throws Exception
    {
        if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS))
        {
            process.destroyForcibly();
            throw new AssertionError(name + " was still running after " + limit.toSeconds() + " s:\n" + output());
        }
        return process.exitValue();
    }

    /** Waits until the child's standard output contains {@code text}; fails if any of {@code others} ends first. */
    void awaitOutput(final String text, final Duration limit, final RankChild... others) throws Exception
    {
        await(out, "", text, limit, others);
    }

    /** Waits until the child's standard error contains {@code text}; fails if the child ends first. */
    void awaitStderr(final String text, final Duration limit) throws Exception
    {
        await(err, " on stderr", text, limit);
    }

    private void await(final Path stream, final String where, final String text, final Duration limit,
        final RankChild... others) throws Exception
    {
        final long deadline = System.nanoTime() + limit.toNanos();
        while (!Files.readString(stream).contains(text))
        {
            for (final RankChild c : concat(this, others))
            {
                if (!c.process.isAlive())
                {
                    throw new AssertionError(c.name + " ended (exit " + c.process.exitValue() + ") before " + name +
                        " printed '" + text + "'" + where + ":\n" + c.output() + (c == this ? "" : "\n" + output()));
                }
            }
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError(name + " did not print '" + text + "'" + where + " in " + limit.toSeconds() +
                    " s:\n" + output());
            }
            Thread.sleep(5);
        }
    }

    /** Sends {@code SIGNAL} (for instance {@code STOP}, {@code CONT}) to {@code pid} with kill(1). */
    static void signal(final long pid, final String signal) throws Exception
    {
        final Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
        if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0)
        {
            throw new AssertionError("kill -" + signal + " " + pid + " failed");
        }
    }

    /** Kills the child with SIGKILL and checks that it died of it. */
    void kill() throws Exception
    {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS))
        {
            throw new AssertionError(name + " did not die after SIGKILL");
        }
        final int exit = process.exitValue();
        if (exit != 137)
        {
            throw new AssertionError(name + ": expected death by SIGKILL (exit 137), got exit " + exit + ":\n" +
                output());
        }
    }

    boolean alive()
    {
        return process.isAlive();
    }

    /** Kills the child if it still runs; for finally blocks. */
    void destroy()
    {
        if (process != null)
        {
            process.destroyForcibly();
        }
    }

    /**
     * Until this child (a launcher) ends, kills with SIGKILL every process that printed {@code CRASHPOINT POINT PID}.
     *
     * @return the pids killed.
     * @throws AssertionError if the child runs past {@code limit}, with its output.
     */
    Set<Long> killAtCrashPoints(final Duration limit) throws Exception
    {
        return killAtCrashPoints(limit, Set.of());
    }

    /**
     * As {@link #killAtCrashPoints(Duration)}, and at the first crash point also kills the processes {@code launch}
     * last started for {@code alsoRanks} ({@code spillway launch: rank R pid P}): losses at the same moment.
     */
    Set<Long> killAtCrashPoints(final Duration limit, final Set<Integer> alsoRanks) throws Exception
    {
        final Set<Long> killed = new LinkedHashSet<>();
        final long deadline = System.nanoTime() + limit.toNanos();
        boolean companionsKilled = alsoRanks.isEmpty();
        while (alive())
        {
            final String output = stdout() + stderr();
            final Matcher m = CRASHPOINT.matcher(output);
            while (m.find())
            {
                final long pid = Long.parseLong(m.group(2));
                if (killed.add(pid))
                {
                    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                }
                if (!companionsKilled)
                {
                    companionsKilled = true;
                    for (final long companion : lastPids(output, alsoRanks))
                    {
                        if (killed.add(companion))
                        {
                            ProcessHandle.of(companion).ifPresent(ProcessHandle::destroyForcibly);
                        }
                    }
                }
            }
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("the launched job did not end within " + limit.toMinutes() + " min (killed "
                    + killed + "):\n" + output());
            }
            Thread.sleep(20);
        }
        return killed;
    }

    /** @return the pid {@code launch} last reported starting for each of {@code ranks}. */
    static List<Long> lastPids(final String output, final Set<Integer> ranks)
    {
        final Map<Integer, Long> last = new LinkedHashMap<>();
        final Matcher m = LAUNCHED.matcher(output);
        while (m.find())
        {
            final int rank = Integer.parseInt(m.group(1));
            if (ranks.contains(rank))
            {
                last.put(rank, Long.parseLong(m.group(2)));
            }
        }
        if (!last.keySet().containsAll(ranks))
        {
            throw new AssertionError("launch has not said it started ranks " + ranks + " (only " + last.keySet() +
                ")");
        }
        return List.copyOf(last.values());
    }

    String stdout() throws IOException
    {
        return Files.readString(out);
    }

    String stderr() throws IOException
    {
        return Files.readString(err);
    }

    /** @return both streams, labelled, for failure messages. */
    String output() throws IOException
    {
        return "--- " + name + " stdout ---\n" + stdout() + "--- " + name + " stderr ---\n" + stderr();
    }

    private static List<RankChild> concat(final RankChild first, final RankChild... rest)
    {
        final List<RankChild> all = new ArrayList<>();
        all.add(first);
        all.addAll(List.of(rest));
        return all;
    }

}
