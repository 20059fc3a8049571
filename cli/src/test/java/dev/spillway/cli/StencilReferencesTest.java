package dev.spillway.cli;

import dev.spillway.kernels.stencil.Stencil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reference checksum computed in a JVM of its own equals the in-process reference's, and is kept by its key. */
@Timeout(600)
class StencilReferencesTest
{
    private static final List<String> PROBLEM = List.of("--grid", "40,36,20", "--tile", "16", "--sweeps", "3",
        "--steps", "2");

    @TempDir
    Path dir;

    @Test
    void computedInAChildKeptAndReadBack() throws Exception
    {
        final Stencil stencil = new Stencil(40, 36, 20, 3, 3, 2, 3, 2, 0);
        final StencilReferences references = new StencilReferences(dir, 300);
        final String computed = references.checksum(stencil, PROBLEM);
        assertEquals(stencil.referenceChecksum(), computed);
        final Path kept = dir.resolve("stencil-40x36x20-3x3x2-s3-t2");
        assertEquals(computed, Files.readString(kept).trim());
        Files.delete(dir.resolve("stencil-40x36x20-3x3x2-s3-t2.log"));
        assertEquals(computed, references.checksum(stencil, PROBLEM), "read back from " + kept);
        assertTrue(Files.notExists(dir.resolve("stencil-40x36x20-3x3x2-s3-t2.log")), "no second computation");
    }

    @Test
    void optionsThatMakeAnotherStencilAreRefused()
    {
        final Stencil other = new Stencil(40, 36, 20, 3, 3, 2, 3, 5, 0);
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> new StencilReferences(dir, 300).checksum(other, PROBLEM));
        assertTrue(e.getMessage().contains("expected a line 'stencil reference checksum … for 40x36x20-3x3x2-s3-t5'") &&
            e.getMessage().contains("stencil-40x36x20-3x3x2-s3-t5.log"), e.getMessage());
        assertTrue(Files.notExists(dir.resolve("stencil-40x36x20-3x3x2-s3-t5")), "nothing kept");
    }
}
