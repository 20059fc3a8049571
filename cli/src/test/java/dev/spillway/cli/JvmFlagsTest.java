package dev.spillway.cli;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The stores' flag check, the launcher script and the JMH forks must pass the same JVM flags as the root pom's {@code spillway.jvm.flags}. */
class JvmFlagsTest
{
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static List<String> pomFlags;

    @BeforeAll
    static void readPom() throws IOException
    {
        final Matcher pom = Pattern.compile("<spillway\\.jvm\\.flags>(.*?)</spillway\\.jvm\\.flags>")
            .matcher(Files.readString(ROOT.resolve("pom.xml")));
        assertTrue(pom.find(), "spillway.jvm.flags not found in pom.xml");
        pomFlags = List.of(pom.group(1).trim().split("\\s+"));
    }

    @Test
    void theStoresCheckTheFlagsOfThePom()
    {
        assertEquals(pomFlags, dev.spillway.io.JvmAccess.FLAGS);
    }

    @Test
    void launcherMatchesThePom() throws IOException
    {
        final Matcher script = Pattern.compile("(?s)\\nflags=\\(\\n(.*?)\\n\\)")
            .matcher(Files.readString(ROOT.resolve("spillway")));
        assertTrue(script.find(), "flags=( ... ) not found in the spillway script");
        assertEquals(pomFlags, List.of(script.group(1).trim().split("\\s+")));
    }

    @Test
    void jmhForksMatchThePom() throws IOException
    {
        final String source = Files.readString(
            ROOT.resolve("bench/src/main/java/dev/spillway/bench/SpillwayBenchmark.java"));
        final Matcher quoted = Pattern.compile("\"(-[^\"]+)\"").matcher(source.substring(source.indexOf("@Fork(")));
        final List<String> flags = new ArrayList<>();
        while (quoted.find())
        {
            flags.add(quoted.group(1));
        }
        assertEquals(pomFlags, flags);
    }
}
