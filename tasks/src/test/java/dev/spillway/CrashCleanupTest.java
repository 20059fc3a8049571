package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A runtime killed with SIGKILL leaves spill files; the next runtime on the same directory removes them. */
@Timeout(120)
class CrashCleanupTest
{
    @TempDir
    Path dir;

    @Test
    void spillFilesOfAKilledProcessAreRemovedOnTheNextStart() throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(CrashChild.class.getName());
        command.add(dir.toString());
        final Path log = Files.createTempFile("crash-child", ".log");
        final Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
            .start();
        Await.until("the child to print SPILLED (or die)", () -> spilled(log) != null || !child.isAlive(),
            () -> "child output:\n" + read(log));
        final String line = spilled(log);
        assertTrue(line != null, "the child did not spill: " + Files.readString(log));
        child.destroyForcibly();
        assertEquals(137, child.waitFor(), "killed with SIGKILL");
        Files.delete(log);
        final String[] parts = line.split(" ");
        final Path leftOver = dir.resolve(parts[1]);
        assertTrue(Integer.parseInt(parts[2]) > 0, "the child must have written spill blocks");
        assertTrue(Files.isDirectory(leftOver), "a killed runtime leaves its spill directory: " + leftOver);

        try (Spillway sw = Runtimes.small(dir, 1 << 20, "a").build())
        {
            assertFalse(Files.exists(leftOver), "the next start removes " + leftOver);
            final Data d = sw.data("x", 4096);
            sw.task("w").write(d).submit(ctx -> Runtimes.fill(ctx.buffer(d), 2)).join();
        }
        try (Stream<Path> files = Files.list(dir))
        {
            assertEquals(List.of(), files.toList());
        }
    }

    private static String spilled(final Path log)
    {
        return read(log).lines().filter(l -> l.startsWith("SPILLED")).findFirst().orElse(null);
    }

    private static String read(final Path log)
    {
        try
        {
            return Files.readString(log);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
    }
}
