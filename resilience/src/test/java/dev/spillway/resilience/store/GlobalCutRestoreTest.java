package dev.spillway.resilience.store;

import dev.spillway.checkpoint.Cut;
import dev.spillway.checkpoint.GenerationWriter;
import dev.spillway.checkpoint.RestorePoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeMap;
import java.util.zip.CRC32C;

import static dev.spillway.resilience.store.Fixture.aligned;
import static dev.spillway.resilience.store.Fixture.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A rank's store restores the generation of the job's global checkpoint, not its own newest one, and fails loudly
 * when that generation is gone or corrupt; cuts keep their global index through the manifest.
 */
class GlobalCutRestoreTest
{
    @TempDir
    Path dir;

    /** Commits generations at global indices 40 (a = 1), 80 (a = 2) and 120 (a = 3); only two are kept. */
    private void threeGlobalCuts() throws IOException
    {
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            assertNull(store.restore(line -> { }));
            for (int k = 1; k <= 3; k++)
            {
                final GenerationWriter w = store.begin(new Cut(store.nextGeneration(), 10L * k, 40L * k, 0, 42));
                w.save("a", aligned(bytes(k, 5000)), k);
                w.commit();
            }
        }
    }

    /**
     * A buddy keeps its partner's three newest copies and, besides them, every one from the newest global cut it
     * knows on, which may be older.
     */
    @Test
    void keepNewestAlsoKeepsEveryCutFromTheOneNamed() throws IOException
    {
        try (FileCheckpointStore store = FileCheckpointStore.builder(dir).keep(5).open())
        {
            assertNull(store.restore(line -> { }));
            for (int k = 1; k <= 5; k++)
            {
                final GenerationWriter w = store.begin(new Cut(store.nextGeneration(), 10L * k, 40L * k, 0, 42));
                w.save("a", aligned(bytes(k, 5000)), k);
                w.commit();
            }
        }
        final java.util.List<String> warnings = new java.util.ArrayList<>();
        GenerationFiles.keepNewest(dir, 3, 80, warnings::add);
        assertEquals(java.util.List.of(200L, 160L, 120L, 80L), GenerationFiles.completeCuts(dir, Long.MAX_VALUE));
        GenerationFiles.keepNewest(dir, 3, Long.MAX_VALUE, warnings::add);
        assertEquals(java.util.List.of(200L, 160L, 120L), GenerationFiles.completeCuts(dir, Long.MAX_VALUE));
        assertEquals(java.util.List.of(), warnings);
    }

    @Test
    void restoresTheGlobalCutNotTheNewestGeneration() throws IOException
    {
        threeGlobalCuts();
        try (FileCheckpointStore store = FileCheckpointStore.builder(dir).globalCut(80).open())
        {
            final RestorePoint point = store.restore(line -> { });
            assertEquals(new Cut(1, 20, 80, 0, 42), point.cut());
            assertArrayEquals(bytes(2, 5000), Fixture.read(point, "a"));
            assertTrue(point.explanation().contains("global index 120 is not the one every rank committed"),
                point.explanation());
        }
    }

    @Test
    void theGlobalGenerationIsNeverQuarantined() throws IOException
    {
        threeGlobalCuts();
        for (int crash = 0; crash < RestoreAttempts.LIMIT + 1; crash++)
        {
            RestoreAttempts.load(dir).begin(1);
        }
        try (FileCheckpointStore store = FileCheckpointStore.builder(dir).globalCut(80).open())
        {
            assertEquals(80, store.restore(line -> { }).cut().globalIndex(),
                "restores that crashed must not make the job's only usable generation unusable");
        }
    }

    @Test
    void withoutAGlobalCheckpointTheRankStartsAfresh() throws IOException
    {
        threeGlobalCuts();
        try (FileCheckpointStore store = FileCheckpointStore.builder(dir).globalCut(Cut.LOCAL).open())
        {
            assertNull(store.restore(line -> { }));
        }
    }

    @Test
    void aMissingOrCorruptGlobalGenerationFailsNamingIt() throws IOException
    {
        threeGlobalCuts();
        try (FileCheckpointStore store = FileCheckpointStore.builder(dir).globalCut(40).open())
        {
            final IOException e = assertThrows(IOException.class, () -> store.restore(line -> { }));
            assertTrue(e.getMessage().contains("global index 40") && e.getMessage().contains(dir.toString()),
                e.getMessage());
        }
        final Path manifest = Generations.manifest(dir, 2);
        final byte[] bytes = Files.readAllBytes(manifest);
        bytes[20] ^= 1;
        Files.write(manifest, bytes);
        try (FileCheckpointStore store = FileCheckpointStore.builder(dir).globalCut(120).open())
        {
            final IOException e = assertThrows(IOException.class, () -> store.restore(line -> { }));
            assertTrue(e.getMessage().contains("CRC32C"), e.getMessage());
        }
    }

    @Test
    void aCompletedRankCannotServeTheJobsGlobalCheckpoint() throws IOException
    {
        threeGlobalCuts();
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            store.restore(line -> { });
            store.markComplete();
        }
        try (FileCheckpointStore store = FileCheckpointStore.builder(dir).globalCut(120).open())
        {
            final IOException e = assertThrows(IOException.class, () -> store.restore(line -> { }));
            assertTrue(e.getMessage().contains("had completed"), e.getMessage());
        }
    }

    @Test
    void aVersionOneManifestReadsAsALocalCut() throws Exception
    {
        final Manifest m = new Manifest(Cut.local(3, 7, 1, 42), 5, 6, new TreeMap<>());
        final byte[] v2 = ManifestCodec.encode(m);
        final ByteArrayOutputStream v1 = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(v1))
        {
            out.writeInt(ManifestCodec.MAGIC);
            out.writeInt(1);
            for (final long field : new long[] {3, 7, 1, 42, 5, 6})
            {
                out.writeLong(field);
            }
            out.writeInt(0);
            out.flush();
            final CRC32C crc = new CRC32C();
            crc.update(v1.toByteArray());
            out.writeInt((int)crc.getValue());
        }
        assertEquals(m.cut(), ManifestCodec.decode("v1", v1.toByteArray(), true).cut());
        assertEquals(m.cut(), ManifestCodec.decode("v2", v2, true).cut());
        assertEquals(Cut.LOCAL, ManifestCodec.decode("v1", v1.toByteArray(), true).cut().globalIndex());
    }
}
