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
     *
     * @return the store's directory.
     */
    private Path replica(final String name, final boolean rewriteA, final int flipBitOfB, final long versionOfB)
        throws IOException
    {
        final Path replica = dir.resolve(name);
        try (FileCheckpointStore store = FileCheckpointStore.open(replica))
        {
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
        }
        return replica;
    }

    private static GenerationDigest digest(final Path replica, final long cut) throws IOException
    {
        return GenerationFiles.digest(replica, cut);
    }

    @Test
    void equalGenerationsMatchWhereverTheirBlocksLie() throws IOException
    {
        final Path one = replica("one", false, -1, 2);
        final Path two = replica("two", true, -1, 2);
        for (final long cut : new long[] {40, 80})
        {
            final GenerationDigest d = digest(one, cut);
            assertTrue(d.matches(digest(two, cut).sha256()), "cut " + cut + ": " + d + " against " +
                digest(two, cut));
            assertEquals(Set.of(), d.differingObjects(digest(two, cut)));
            assertEquals(cut, d.globalIndex());
        }
        assertFalse(digest(one, 40).matches(digest(one, 80).sha256()), "the cuts at 40 and 80 hold different b");
        assertEquals(Set.of("a", "b", "c"), digest(one, 80).objects().keySet());
    }

    @Test
    void aFlippedBitOrAnotherVersionNamesTheObject() throws IOException
    {
        final Path clean = replica("clean", false, -1, 2);
        final Path flipped = replica("flipped", false, 12345, 2);
        final Path later = replica("later", false, -1, 3);
        assertTrue(digest(clean, 40).matches(digest(flipped, 40).sha256()), "the cut before the flip");
        for (final Path other : new Path[] {flipped, later})
        {
            final GenerationDigest d = digest(other, 80);
            assertFalse(digest(clean, 80).matches(d.sha256()), d + " must differ from " + digest(clean, 80));
            assertEquals(Set.of("b"), digest(clean, 80).differingObjects(d));
        }
    }

    @Test
    void aCutNotHeldIsRefusedNamingIt() throws IOException
    {
        final Path one = replica("one", false, -1, 2);
        final IOException e = assertThrows(IOException.class, () -> digest(one, 120));
        assertTrue(e.getMessage().contains("global index 120") && e.getMessage().contains(one.toString()),
            e.getMessage());
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
