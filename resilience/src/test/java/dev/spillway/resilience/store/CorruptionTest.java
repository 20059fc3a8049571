package dev.spillway.resilience.store;

import dev.spillway.checkpoint.RestorePoint;
import dev.spillway.io.BlockCorruptedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.spillway.resilience.store.Fixture.bytes;
import static dev.spillway.resilience.store.Fixture.commit;
import static dev.spillway.resilience.store.Fixture.read;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Corrupted, torn, truncated and missing files: restore rejects the generation with a reason naming what failed,
 * logs it, and falls back to the older generation. With checksums off (the negative control) the same bit flip
 * goes through, which shows these tests can fail.
 */
@Timeout(600)
class CorruptionTest
{
    private static final byte[] A0 = bytes(10, 20_000);
    private static final byte[] B0 = bytes(11, 5000);
    private static final byte[] C0 = bytes(12, 9000);
    private static final byte[] B1 = bytes(13, 12_345);

    @TempDir
    Path dir;

    private final List<String> log = new ArrayList<>();

    /** Generation 0 saves a, b, c; generation 1 saves only b. */
    private void twoGenerations() throws IOException
    {
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            store.restore(log::add);
            commit(store, Map.of("a", A0, "b", B0, "c", C0), 1);
            commit(store, Map.of("b", B1), 2);
        }
    }

    private RestorePoint restore(final boolean verify) throws IOException
    {
        try (FileCheckpointStore store = FileCheckpointStore.builder(dir).verifyChecksums(verify).open())
        {
            return store.restore(log::add);
        }
    }

    /** Asserts generation 1 was rejected for {@code reasons} and generation 0 restored intact. */
    private void assertFellBackToGenerationZero(final RestorePoint point, final String... reasons) throws IOException
    {
        assertEquals(0, point.cut().generation(), point.explanation());
        assertEquals(1, log.size(), log.toString());
        for (final String reason : reasons)
        {
            assertTrue(log.get(0).contains(reason), "'" + reason + "' not in: " + log.get(0));
            assertTrue(point.explanation().contains(reason), point.explanation());
        }
        assertTrue(log.get(0).contains("generation 1 rejected"), log.get(0));
        assertArrayEquals(A0, read(point, "a"));
        assertArrayEquals(B0, read(point, "b"));
        assertArrayEquals(C0, read(point, "c"));
    }

    private static void flipBit(final Path file, final long offset, final int bit) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.seek(offset);
            final int value = raf.read();
            raf.seek(offset);
            raf.write(value ^ (1 << bit));
        }
    }

    private static void truncate(final Path file, final long length) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.setLength(length);
        }
    }

    @Test
    void aFlippedBitInTheNewestGenerationFallsBackToTheOlder() throws IOException
    {
        final Random random = new Random(20240611);
        for (int round = 0; round < 16; round++)
        {
            Fixture.files(dir).forEach(name -> dir.resolve(name).toFile().delete());
            log.clear();
            twoGenerations();
            final ManifestEntry b = Fixture.manifest(dir, 1).entries().get("b");
            final long offset = b.offset() + random.nextInt(b.length());
            flipBit(Generations.blocks(dir, 1), offset, random.nextInt(8));
            assertFellBackToGenerationZero(restore(true), "block 'b'", "blocks-1.dat", "failed its checksum",
                "expected " + BlockChecksum.describe(b.checksum()));
        }
    }

    @Test
    void negativeControlWithoutChecksumsTheFlippedBlockIsRestored() throws IOException
    {
        twoGenerations();
        final ManifestEntry b = Fixture.manifest(dir, 1).entries().get("b");
        flipBit(Generations.blocks(dir, 1), b.offset() + 4321, 5);
        final RestorePoint point = restore(false);
        assertEquals(1, point.cut().generation(), "without checksums the corrupt generation is used");
        assertTrue(log.isEmpty(), log.toString());
        final byte[] restored = read(point, "b");
        assertEquals(B1.length, restored.length);
        assertFalse(Arrays.equals(B1, restored), "the restored bytes differ from those saved");
        assertTrue(point.explanation().contains("NOT verified"), point.explanation());
    }

    @Test
    void aFlippedBitInAnInheritedBlockRejectsBothGenerations() throws IOException
    {
        twoGenerations();
        final ManifestEntry c = Fixture.manifest(dir, 1).entries().get("c");
        assertEquals(0, c.fileGeneration());
        flipBit(Generations.blocks(dir, 0), c.offset() + c.length() - 1, 7);
        assertNull(restore(true));
        assertEquals(3, log.size(), log.toString());
        assertTrue(log.get(0).contains("generation 1 rejected") && log.get(0).contains("block 'c'"), log.get(0));
        assertTrue(log.get(1).contains("generation 0 rejected") && log.get(1).contains("block 'c'"), log.get(1));
        assertTrue(log.get(2).contains("no verified generation"), log.get(2));
    }

    @Test
    void aTruncatedBlocksFileFallsBack() throws IOException
    {
        twoGenerations();
        final ManifestEntry b = Fixture.manifest(dir, 1).entries().get("b");
        truncate(Generations.blocks(dir, 1), b.offset() + b.length() / 2);
        assertFellBackToGenerationZero(restore(true), "block 'b'", "blocks-1.dat", "truncated");
    }

    @Test
    void aMissingBlocksFileFallsBack() throws IOException
    {
        twoGenerations();
        Files.delete(Generations.blocks(dir, 1));
        assertFellBackToGenerationZero(restore(true), "block 'b'", "blocks-1.dat is missing");
    }

    @Test
    void aTornManifestFallsBack() throws IOException
    {
        twoGenerations();
        final Path manifest = Generations.manifest(dir, 1);
        truncate(manifest, Files.size(manifest) / 2);
        assertFellBackToGenerationZero(restore(true), "manifest gen-1.manifest", "torn or corrupted");
    }

    @Test
    void aManifestCutShortOfItsHeaderFallsBack() throws IOException
    {
        twoGenerations();
        truncate(Generations.manifest(dir, 1), 10);
        assertFellBackToGenerationZero(restore(true), "manifest gen-1.manifest", "truncated");
    }

    @Test
    void aFlippedByteInTheManifestFallsBack() throws IOException
    {
        final Random random = new Random(7);
        for (int round = 0; round < 16; round++)
        {
            Fixture.files(dir).forEach(name -> dir.resolve(name).toFile().delete());
            log.clear();
            twoGenerations();
            final Path manifest = Generations.manifest(dir, 1);
            flipBit(manifest, random.nextInt((int)Files.size(manifest)), random.nextInt(8));
            assertFellBackToGenerationZero(restore(true), "manifest gen-1.manifest");
        }
    }

    @Test
    void readChecksTheBlockAgain() throws IOException
    {
        twoGenerations();
        final RestorePoint point = restore(true);
        assertEquals(1, point.cut().generation());
        final ManifestEntry a = Fixture.manifest(dir, 1).entries().get("a");
        flipBit(Generations.blocks(dir, 0), a.offset() + 17, 0);
        final BlockCorruptedException e = assertThrows(BlockCorruptedException.class, () -> read(point, "a"));
        assertTrue(e.getMessage().contains("block 'a'") && e.getMessage().contains("blocks-0.dat"), e.getMessage());
        assertArrayEquals(B1, read(point, "b"));
    }

    @Test
    void aGenerationOnWhichRestoreCrashedTwiceIsQuarantined() throws IOException
    {
        twoGenerations();
        Files.writeString(dir.resolve(Generations.ATTEMPTS), "1 1\n");
        assertEquals(1, restore(true).cut().generation(), "one crash is not enough");
        Files.writeString(dir.resolve(Generations.ATTEMPTS), "1 2\n");
        log.clear();
        assertFellBackToGenerationZero(restore(true), "quarantined", "crashed 2 times");
        assertFalse(Files.exists(dir.resolve(Generations.ATTEMPTS)), "a finished restore forgets its attempts");
    }
}
