package dev.spillway.cli;

import dev.spillway.resilience.RunChild;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;

/**
 * {@code spillway args...} in a child JVM (the command of {@link RunChild#java}: this JVM's flags, the test class
 * path, Java BLAS), standard output and error together in one log, for tests that signal it. Every wait is for an
 * event (a line of output, a file, the exit) and fails with the child's output when its safety limit passes.
 */
final class CliChild
{
    /** Safety limit of every wait: long enough for a machine ten times slower than a laptop. */
    static final Duration LIMIT = Duration.ofSeconds(300);

    private final String name;
    private final Path log;
    private final Process process;

    private CliChild(final String name, final Path log, final Process process)
    {
        this.name = name;
        this.log = log;
        this.process = process;
    }

    /** Starts {@code spillway args...}, logging to {@code work/name.log}. */
    static CliChild start(final Path work, final String name, final List<String> args) throws IOException
    {
        final Path log = work.resolve(name + ".log");
        final List<String> command = new ArrayList<>();
        if (sigintIgnoredHere())
        {
            // A child inherits an ignored SIGINT (mvn started in the background of a script): reset it to default.
            command.addAll(List.of("perl", "-e", "$SIG{INT} = 'DEFAULT'; exec @ARGV or die \"exec: $!\""));
        }
        command.addAll(RunChild.java(List.of(), SpillwayCli.class.getName()));
        command.addAll(args);
        final ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("OPENBLAS_NUM_THREADS", "1");
        for (final String k : List.of("SPILLWAY_RANK", "SPILLWAY_SIZE", "SPILLWAY_COORDINATOR", "SPILLWAY_SECRET"))
        {
            pb.environment().remove(k);
        }
        return new CliChild(name, log, pb.start());
    }

    long pid()
    {
        return process.pid();
    }

    ProcessHandle handle()
    {
        return process.toHandle();
    }

    /** Waits until a line of output matches {@code regex}; fails if the child ends first. */
    void awaitLine(final String regex) throws Exception
    {
        final Pattern p = Pattern.compile(regex);
        await("a line matching /" + regex + "/", () -> output().lines().anyMatch(l -> p.matcher(l).find()));
    }

    /** Waits until {@code condition} holds; fails naming {@code what} if the child ends first or the limit passes. */
    void await(final String what, final BooleanSupplier condition) throws Exception
    {
        final long deadline = System.nanoTime() + LIMIT.toNanos();
        while (!condition.getAsBoolean())
        {
            if (!process.isAlive())
            {
                throw new AssertionError(name + " ended (exit " + process.exitValue() + ") before " + what +
                    ":\n" + output());
            }
            if (System.nanoTime() > deadline)
            {
                process.destroyForcibly();
                throw new AssertionError(name + " showed no " + what + " in " + LIMIT.toSeconds() + " s:\n" +
                    output());
            }
            Thread.sleep(5);
        }
    }

    /** Sends {@code signal} (INT, TERM, ...) with {@code kill}. */
    void signal(final String signal) throws Exception
    {
        final Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0)
        {
            throw new AssertionError("kill -s " + signal + " " + process.pid() + " failed");
        }
    }

    /** Waits for the child to end; returns its exit status. */
    int awaitExit() throws Exception
    {
        if (!process.waitFor(LIMIT.toMillis(), TimeUnit.MILLISECONDS))
        {
            process.destroyForcibly();
            throw new AssertionError(name + " was still running after " + LIMIT.toSeconds() + " s:\n" + output());
        }
        return process.exitValue();
    }

    /** Kills the child if it still runs, and its descendants; for finally blocks. */
    void destroy()
    {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    String output()
    {
        try
        {
            return Files.readString(log);
        }
        catch (final IOException e)
        {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /** @return whether this JVM ignores SIGINT, which its children would inherit. */
    private static boolean sigintIgnoredHere() throws IOException
    {
        final String mask = Files.readAllLines(Path.of("/proc/self/status")).stream()
            .filter(l -> l.startsWith("SigIgn:")).map(l -> l.substring(7).trim()).findFirst().orElse("0");
        return (Long.parseUnsignedLong(mask, 16) & (1L << 1)) != 0;
    }
}
