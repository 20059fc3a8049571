package dev.spillway.resilience.store;

import dev.spillway.checkpoint.Cut;
import dev.spillway.checkpoint.GenerationWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import static dev.spillway.resilience.store.Fixture.aligned;
import static dev.spillway.resilience.store.Fixture.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Replicas' generations compare by content, whatever file holds a block; one flipped bit changes the digest. */
class GenerationDigestTest
{
    private static final int BYTES = 6000;

    @TempDir
    Path dir;

    /**
     * Writes the cut at 40 (a, b and c at version 1) and the cut at 80 (b at version 2; a and c inherited unless
     * {@code rewriteA}, which saves a again, unchanged, into the newer blocks file).
     */
    private FileCheckpointStore replica(final String name, final boolean rewriteA, final int flipBitOfB,
        final long versionOfB) throws IOException
    {
        final FileCheckpointStore store = FileCheckpointStore.open(dir.resolve(name));
        store.restore(line -> { });
        final GenerationWriter first = store.begin(new Cut(store.nextGeneration(), 10, 40, 0, 42));
        for (final String tag : new String[] {"a", "b", "c"})
        {
            first.save(tag, aligned(bytes(tag.charAt(0), BYTES)), 1);
        }
        first.commit();
        final GenerationWriter second = store.begin(new Cut(store.nextGeneration(), 20, 80, 0, 42));
        final byte[] b = bytes('b' + 1, BYTES);
        if (flipBitOfB >= 0)
        {
            b[flipBitOfB / 8] ^= (byte)(1 << (flipBitOfB % 8));
        }
        second.save("b", aligned(b), versionOfB);
        if (rewriteA)
        {
            second.save("a", aligned(bytes('a', BYTES)), 1);
        }
        second.commit();
        return store;
    }

    @Test
    void equalGenerationsMatchWhereverTheirBlocksLie() throws IOException
    {
        try (FileCheckpointStore one = replica("one", false, -1, 2);
             FileCheckpointStore two = replica("two", true, -1, 2))
        {
            for (final long cut : new long[] {40, 80})
            {
                final GenerationDigest d = one.digest(cut);
                assertTrue(d.matches(two.digest(cut).sha256()), "cut " + cut + ": " + d + " against " +
                    two.digest(cut));
                assertEquals(Set.of(), d.differingObjects(two.digest(cut)));
                assertEquals(cut, d.globalIndex());
            }
            assertFalse(one.digest(40).matches(one.digest(80).sha256()), "the cuts at 40 and 80 hold different b");
            assertEquals(Set.of("a", "b", "c"), one.digest(80).objects().keySet());
        }
    }

    @Test
    void aFlippedBitOrAnotherVersionNamesTheObject() throws IOException
    {
        try (FileCheckpointStore clean = replica("clean", false, -1, 2);
             FileCheckpointStore flipped = replica("flipped", false, 12345, 2);
             FileCheckpointStore later = replica("later", false, -1, 3))
        {
            assertTrue(clean.digest(40).matches(flipped.digest(40).sha256()), "the cut before the flip");
            for (final FileCheckpointStore other : new FileCheckpointStore[] {flipped, later})
            {
                final GenerationDigest d = other.digest(80);
                assertFalse(clean.digest(80).matches(d.sha256()), d + " must differ from " + clean.digest(80));
                assertEquals(Set.of("b"), clean.digest(80).differingObjects(d));
            }
        }
    }

    @Test
    void aCutNotKeptIsRefusedNamingThoseKept() throws IOException
    {
        try (FileCheckpointStore store = replica("one", false, -1, 2))
        {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> store.digest(120));
            assertTrue(e.getMessage().contains("global cut 120") && e.getMessage().contains("(cut 40)") &&
                e.getMessage().contains("(cut 80)"), e.getMessage());
        }
    }

    @Test
    void anObjectOnOneSideOnlyDiffers()
    {
        final GenerationDigest both = GenerationDigest.of(7, Map.of("x", new GenerationDigest.ObjectState(1, 9),
            "y", new GenerationDigest.ObjectState(1, 9)));
        final GenerationDigest one = GenerationDigest.of(7, Map.of("x", new GenerationDigest.ObjectState(1, 9)));
        assertFalse(both.matches(one.sha256()));
        assertEquals(Set.of("y"), both.differingObjects(one));
        assertEquals(Set.of("y"), one.differingObjects(both));
    }
}
