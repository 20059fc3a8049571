package dev.spillway;

import dev.spillway.io.JvmAccess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An embedder that forgot the JVM flags gets a Spillway message listing them, not an error deep in Chronicle. */
@Timeout(300)
class EmbeddingFlagsTest
{
    @TempDir
    Path dir;

    @Test
    void withoutTheFlagsBuildNamesThem() throws Exception
    {
        final Result r = run(List.of());
        assertNotEquals(0, r.exit, r.output);
        assertTrue(r.output.contains("needs these JVM flags") &&
            r.output.contains("--add-opens=java.base/java.lang=ALL-UNNAMED") &&
            !r.output.contains("InaccessibleObjectException"), r.output);
    }

    @Test
    void withTheFlagsItRuns() throws Exception
    {
        final Result r = run(JvmAccess.FLAGS);
        assertEquals(0, r.exit, r.output);
        assertTrue(r.output.contains("ran"), r.output);
    }

    private Result run(final List<String> flags) throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(flags);
        for (final String arg : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (arg.startsWith("--enable-native-access") || arg.startsWith("--sun-misc-unsafe"))
            {
                command.add(arg);
            }
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), EmbeddingChild.class.getName(),
            dir.toString()));
        final Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(child.waitFor(), output);
    }

    private record Result(int exit, String output)
    {
    }
}
