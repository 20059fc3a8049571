package dev.spillway.resilience;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.cli.SpillwayCli;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code spillway run lu} in a child JVM, for fault injection: run it to the end, or kill it with SIGKILL at a named
 * crash point.
 */
public final class RunChild
{
    static final int N = 2048;
    static final int TILE = 128;
    /** Safety net per child: a run takes about 5 s on a quiet machine; a timeout prints the child's output. */
    private static final long LIMIT_SECONDS = 300;

    private final Path work;
    private final List<String> jvmProperties = new ArrayList<>();
    private final List<String> runArgs = new ArrayList<>();
    private Path log;
    private Path json;
    private Process process;
    private String workers = "2";
    private String dram = "40%";

    private RunChild(final Path work)
    {
        this.work = work;
    }

    /** LU of order {@link #N} out of core with checkpoints every {@code every} tasks into {@code work/ckpt}. */
    static RunChild lu(final Path work, final String every)
    {
        final RunChild c = new RunChild(work);
        c.runArgs.addAll(List.of("run", "lu", "--n", String.valueOf(N), "--tile", String.valueOf(TILE),
            "--dir", work.resolve("spill").toString()));
        if (every != null)
        {
            c.runArgs.addAll(List.of("--checkpoint-dir", work.resolve("ckpt").toString(), "--checkpoint-every", every));
        }
        return c;
    }

    /** Runs with {@code w} workers and a DRAM budget of {@code budget} (defaults: 2 and 40 %). */
    RunChild on(final int w, final String budget)
    {
        workers = String.valueOf(w);
        dram = budget;
        return this;
    }

    RunChild property(final String name, final String value)
    {
        jvmProperties.add("-D" + name + "=" + value);
        return this;
    }

    /** Arms the named crash point at its {@code hit}-th reach. */
    RunChild crashAt(final String point, final int hit)
    {
        return property("spillway.crashAt", point).property("spillway.crashAtHit", String.valueOf(hit));
    }

    /**
     * @return {@code java} with this JVM's flags (no agents, no armed crash point), a 256 MiB heap, C1 only, Java BLAS,
     *         {@code properties}, the test class path and {@code mainClass}.
     */
    public static List<String> java(final List<String> properties, final String mainClass)
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        for (final String a : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (!a.startsWith("-agentlib") && !a.startsWith("-javaagent") && !a.startsWith("-Dspillway.crash"))
            {
                command.add(a);
            }
        }
        command.add("-Xmx256m");
        // Children are short and many (a launch starts 4-6 JVMs on CI's 2 cores): C1 alone takes a 4-rank P2F
        // launch from 12-17 s to 9-11 s, and ranks inherit the flag through the launcher.
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-Dspillway.blas=java");
        command.addAll(properties);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        return command;
    }

    RunChild start() throws IOException
    {
        log = Files.createTempFile(work, "child", ".log");
        json = Files.createTempFile(work, "child", ".json");
        Files.delete(json);
        final List<String> command = java(jvmProperties, SpillwayCli.class.getName());
        command.addAll(runArgs);
        command.addAll(List.of("--workers", workers, "--dram", dram));
        command.add("--json");
        command.add(json.toString());
        final ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("OPENBLAS_NUM_THREADS", "1");
        process = pb.start();
        return this;
    }

    /** Waits until the armed crash point announces itself, then kills the child with SIGKILL. */
    void killAtCrashPoint(final String point) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        while (!output().contains("CRASHPOINT " + point))
        {
            if (!process.isAlive())
            {
                throw new AssertionError("the child ended (exit " + process.exitValue() + ") before reaching " +
                    point + ":\n" + output());
            }
            if (System.nanoTime() > deadline)
            {
                process.destroyForcibly();
                throw new AssertionError("the child did not reach " + point + " in " + LIMIT_SECONDS + " s:\n" +
                    output());
            }
            Thread.sleep(5);
        }
        kill();
    }

    private void kill() throws Exception
    {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS))
        {
            throw new AssertionError("the child did not die after SIGKILL");
        }
        final int exit = process.exitValue();
        if (exit != 137)
        {
            throw new AssertionError("expected death by SIGKILL (137), got exit " + exit + ":\n" + output());
        }
    }

    /** Waits for the child to end by itself; returns its exit status. */
    int await() throws Exception
    {
        if (!process.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new AssertionError("the child ran past " + LIMIT_SECONDS + " s:\n" + output());
        }
        return process.exitValue();
    }

    /** Runs the child to its end and returns its JSON summary; fails on a non-zero exit. */
    JsonNode complete() throws Exception
    {
        final int exit = start().await();
        if (exit != 0 || !Files.exists(json))
        {
            throw new AssertionError("the child failed with exit " + exit + ":\n" + output());
        }
        return new ObjectMapper().readTree(json.toFile());
    }

    String output() throws IOException
    {
        return Files.readString(log);
    }

    /** @return the task count of a finished run, from its summary line {@code spillway: tasks N done, ...}. */
    int tasksDone() throws IOException
    {
        final Matcher m = Pattern.compile("(?m)^spillway: tasks (\\d+) done").matcher(output());
        if (!m.find())
        {
            throw new AssertionError("no 'spillway: tasks N done' line in:\n" + output());
        }
        return Integer.parseInt(m.group(1));
    }
}
