package dev.spillway.io;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.security.CodeSource;

import static org.junit.jupiter.api.Assertions.assertNotNull;

class ChronicleNativeClassesTest
{
    @TempDir
    Path dir;

    /** A class chronicle-values compiled at run time has no code location; the build's comes from the class path. */
    @Test
    void openingAnIndexLoadsTheBuildsClassAndCompilesNothing() throws Exception
    {
        try (BlockIndex index = new BlockIndex(dir.resolve("index"), 16))
        {
            final Class<?> state = Class.forName("net.openhft.chronicle.hash.VanillaGlobalMutableState$$Native");
            final CodeSource source = state.getProtectionDomain().getCodeSource();
            assertNotNull(source == null ? null : source.getLocation(), state + " was compiled at run time: the build did not provide it (io's pom, " +
                "ChronicleNativeClasses)");
        }
    }
}
