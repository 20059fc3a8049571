package dev.spillway.resilience.store;

import dev.spillway.checkpoint.Cut;
import dev.spillway.checkpoint.GenerationWriter;
import dev.spillway.checkpoint.RestorePoint;
import dev.spillway.io.DirectIo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.spillway.resilience.store.Fixture.assertOrphanFree;
import static dev.spillway.resilience.store.Fixture.bytes;
import static dev.spillway.resilience.store.Fixture.commit;
import static dev.spillway.resilience.store.Fixture.read;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Save, commit, restore, inheritance and collection of the file checkpoint store, without faults. */
@Timeout(600)
class FileCheckpointStoreTest
{
    @TempDir
    Path dir;

    private final List<String> log = new ArrayList<>();

    @Test
    void freshDirectoryRestoresNothingAtIncarnationZero() throws IOException
    {
        try (FileCheckpointStore store = FileCheckpointStore.open(dir.resolve("new")))
        {
            assertNull(store.restore(log::add));
            assertEquals(0, store.incarnation());
            assertEquals(0, store.nextGeneration());
            assertTrue(log.isEmpty(), log.toString());
        }
    }

    /**
     * Each restart counts as a failure once the run before it finished a task, with or without a committed
     * checkpoint; a run that did no work (refused at once) is not counted; a completed run is not restarted.
     */
    @Test
    void everyRestartAfterWorkIsCountedWithOrWithoutACommittedCheckpoint() throws IOException
    {
        final long origin;
        try (FileCheckpointStore first = FileCheckpointStore.open(dir))
        {
            assertNull(first.restore(log::add));
            assertEquals(0, first.incarnation());
            origin = first.originMillis();
            first.progress(0);
            first.progress(5);
        }
        try (FileCheckpointStore refused = FileCheckpointStore.open(dir))
        {
            assertEquals(1, refused.incarnation(), "known at open, before restore, for the interval policy");
            assertNull(refused.restore(log::add));
            refused.progress(0);
        }
        try (FileCheckpointStore second = FileCheckpointStore.open(dir))
        {
            assertNull(second.restore(log::add));
            assertEquals(1, second.incarnation(), "the refused run did no work: not a failure");
            assertEquals(origin, second.originMillis(), "elapsed time counts from the first start");
            commit(second, Map.of("a", bytes(1, 100)), 1);
        }
        try (FileCheckpointStore third = FileCheckpointStore.open(dir))
        {
            assertEquals(0, third.restore(log::add).cut().generation());
            assertEquals(2, third.incarnation());
            assertEquals(origin, third.originMillis());
            third.markComplete();
        }
        try (FileCheckpointStore fresh = FileCheckpointStore.open(dir))
        {
            assertNull(fresh.restore(log::add));
            assertEquals(0, fresh.incarnation(), "a completed run is not restarted");
        }
    }

    @Test
    void roundTripsSeveralTagsAndGenerations() throws IOException
    {
        final Map<String, byte[]> first = new LinkedHashMap<>();
        first.put("a", bytes(1, 10_000));
        first.put("b", bytes(2, 4096));
        first.put("empty", new byte[0]);
        first.put("c", bytes(3, 1));
        final Map<String, byte[]> second = Map.of("a", bytes(4, 5000), "b", bytes(5, 70_000), "c", bytes(6, 3));
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            assertNull(store.restore(log::add));
            commit(store, first, 1);
            commit(store, second, 2);
        }
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            final RestorePoint point = store.restore(log::add);
            assertEquals(Cut.local(1, 10, 0, 42), point.cut());
            assertEquals(1, store.incarnation());
            assertEquals(2, store.nextGeneration());
            assertEquals(4, point.blocks().size());
            for (final Map.Entry<String, byte[]> block : second.entrySet())
            {
                assertArrayEquals(block.getValue(), read(point, block.getKey()), block.getKey());
                assertEquals(new RestorePoint.Block(block.getValue().length, 2), point.blocks().get(block.getKey()));
            }
            assertEquals(new RestorePoint.Block(0, 1), point.blocks().get("empty"));
            assertTrue(point.explanation().contains("restored checkpoint generation 1"), point.explanation());
            assertTrue(point.explanation().contains("no generation was rejected"), point.explanation());
            assertTrue(point.readSeconds() > 0 && point.verifySeconds() > 0);
            assertTrue(log.isEmpty(), log.toString());
        }
    }

    @Test
    void aGenerationInheritsWhatItDoesNotSave() throws IOException
    {
        final byte[] a1 = bytes(1, 9000);
        final byte[] b1 = bytes(2, 8192);
        final byte[] b2 = bytes(3, 100);
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            store.restore(log::add);
            commit(store, Map.of("a", a1, "b", b1), 1);
            commit(store, Map.of("b", b2), 2);
            final Manifest second = Fixture.manifest(dir, 1);
            assertEquals(0, second.entries().get("a").fileGeneration(), "a is referenced, not copied");
            assertEquals(1, second.entries().get("b").fileGeneration());
            final long written = Files.size(Generations.blocks(dir, 1));
            assertTrue(written >= 100 && written <= DirectIo.ALIGNMENT, "only b was written: " + written);
        }
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            final RestorePoint point = store.restore(log::add);
            assertEquals(1, point.cut().generation());
            assertArrayEquals(a1, read(point, "a"));
            assertEquals(1, point.blocks().get("a").version());
            assertArrayEquals(b2, read(point, "b"));
            assertEquals(2, point.blocks().get("b").version());
        }
    }

    @Test
    void aMendedGenerationRestoresAndPassesOnTheMendedBlocksAndLeavesOlderOnesAlone() throws IOException
    {
        final byte[] a1 = bytes(1, 9000);
        final byte[] b2 = bytes(3, 100);
        final byte[] aRight = bytes(4, 9000);
        final byte[] bRight = bytes(5, 100);
        try (FileCheckpointStore store = FileCheckpointStore.builder(dir).keep(3).open())
        {
            store.restore(log::add);
            commit(store, Map.of("a", a1, "b", bytes(2, 8192)), 1);
            commit(store, Map.of("b", b2), 2);
            final Cut first = Fixture.manifest(dir, 0).cut();
            final Cut second = Fixture.manifest(dir, 1).cut();
            assertThrows(IllegalStateException.class, () -> store.mend(first, Map.of("a", ByteBuffer.wrap(aRight))),
                "only the newest generation is mended");
            final IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> store.mend(second, Map.of("c", ByteBuffer.wrap(bRight))));
            assertTrue(unknown.getMessage().contains("holds no block 'c'"), unknown.getMessage());
            final IllegalArgumentException length = assertThrows(IllegalArgumentException.class,
                () -> store.mend(second, Map.of("b", ByteBuffer.wrap(aRight))));
            assertTrue(length.getMessage().contains("holds 'b' in 100 bytes, not 9000"), length.getMessage());
            final ByteBuffer right = ByteBuffer.wrap(aRight);
            store.mend(second, Map.of("a", right, "b", ByteBuffer.wrap(bRight)));
            assertEquals(9000, right.remaining(), "the contents are left unchanged");
            final Manifest mended = Fixture.manifest(dir, 1);
            assertEquals(1, mended.entries().get("a").fileGeneration(), "a's mended block lives in generation 1");
            assertEquals(1, mended.entries().get("a").version());
            assertEquals(2, mended.entries().get("b").version());
            assertEquals(0, Fixture.manifest(dir, 0).entries().get("a").fileGeneration(), "generation 0 unchanged");
            commit(store, Map.of(), 3);
        }
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            final RestorePoint point = store.restore(log::add);
            assertEquals(2, point.cut().generation(), "the generation after the mend inherits the mended blocks");
            assertArrayEquals(aRight, read(point, "a"));
            assertArrayEquals(bRight, read(point, "b"));
            assertEquals(1, point.blocks().get("a").version());
        }
        Files.delete(Generations.manifest(dir, 2));
        Files.delete(Generations.manifest(dir, 1));
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            final RestorePoint point = store.restore(log::add);
            assertEquals(0, point.cut().generation());
            assertArrayEquals(a1, read(point, "a"), "the generation before the mended one still verifies, unchanged");
        }
    }

    @Test
    void keepsExactlyTwoGenerationsAndNoOrphans() throws IOException
    {
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            store.restore(log::add);
            commit(store, Map.of("a", bytes(1, 5000), "b", bytes(2, 5000), "c", bytes(3, 5000)), 1);
            assertOrphanFree(dir, 0);
            commit(store, Map.of("a", bytes(4, 5000)), 2);
            assertOrphanFree(dir, 1, 0);
            commit(store, Map.of("b", bytes(5, 5000)), 3);
            assertOrphanFree(dir, 2, 1);
            assertTrue(Files.exists(Generations.blocks(dir, 0)), "c of generation 2 is still in blocks-0");
            commit(store, Map.of("c", bytes(6, 5000)), 4);
            assertOrphanFree(dir, 3, 2);
            commit(store, Map.of("a", bytes(7, 10), "b", bytes(8, 10), "c", bytes(9, 10)), 5);
            assertOrphanFree(dir, 4, 3);
            assertFalse(Files.exists(Generations.blocks(dir, 0)), "nothing kept refers to blocks-0");
        }
    }

    @Test
    void keepsAsManyGenerationsAsAskedFromTheRestoredOneOn() throws IOException
    {
        assertThrows(IllegalArgumentException.class, () -> FileCheckpointStore.builder(dir).keep(1));
        try (FileCheckpointStore store = FileCheckpointStore.builder(dir).keep(3).open())
        {
            store.restore(log::add);
            commit(store, Map.of("a", bytes(1, 5000), "b", bytes(2, 5000)), 1);
            commit(store, Map.of("a", bytes(3, 5000)), 2);
            commit(store, Map.of("a", bytes(4, 5000)), 3);
            assertOrphanFree(dir, 2, 1, 0);
            commit(store, Map.of("b", bytes(5, 5000)), 4);
            assertOrphanFree(dir, 3, 2, 1);
        }
        try (FileCheckpointStore store = FileCheckpointStore.builder(dir).keep(3).open())
        {
            assertEquals(3, store.restore(log::add).cut().generation());
            commit(store, Map.of("a", bytes(6, 5000)), 5);
            assertOrphanFree(dir, 4, 3);
            commit(store, Map.of("a", bytes(7, 5000)), 6);
            assertOrphanFree(dir, 5, 4, 3);
        }
    }

    @Test
    void theNextCommitCollectsWhatACrashedGenerationLeft() throws IOException
    {
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            store.restore(log::add);
            commit(store, Map.of("a", bytes(1, 5000)), 1);
        }
        Files.write(Generations.blocks(dir, 1), bytes(2, 8192));
        Files.write(Generations.manifestTmp(dir, 1), bytes(3, 100));
        Files.write(Generations.blocks(dir, 2), bytes(4, 8192));
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            assertEquals(0, store.restore(log::add).cut().generation());
            assertEquals(3, store.nextGeneration(), "continues after the highest generation on disk");
            commit(store, Map.of("b", bytes(5, 5000)), 2);
            assertOrphanFree(dir, 3, 0);
        }
    }

    @Test
    void abandonLeavesNoFilesAndFreesTheSlot() throws IOException
    {
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            store.restore(log::add);
            commit(store, Map.of("a", bytes(1, 5000)), 1);
            final List<String> before = Fixture.files(dir);
            final GenerationWriter writer = store.begin(Cut.local(store.nextGeneration(), 5, 0, 42));
            writer.save("a", Fixture.aligned(bytes(2, 20_000)), 2);
            writer.save("b", Fixture.aligned(bytes(3, 300)), 2);
            assertTrue(Files.exists(Generations.blocks(dir, 1)));
            writer.abandon();
            assertEquals(before, Fixture.files(dir));
            assertThrows(IllegalStateException.class, writer::commit);
            commit(store, Map.of("b", bytes(4, 10)), 3);
            assertTrue(Files.exists(Generations.manifest(dir, 2)), "the abandoned generation's number is not reused");
            assertFalse(Files.exists(Generations.manifest(dir, 1)));
        }
    }

    @Test
    void onlyOneGenerationInFlight() throws IOException
    {
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            store.restore(log::add);
            final GenerationWriter writer = store.begin(Cut.local(0, 1, 0, 42));
            final IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> store.begin(Cut.local(1, 2, 0, 42)));
            assertTrue(e.getMessage().contains("generation 0") && e.getMessage().contains("in flight"),
                e.getMessage());
            writer.commit();
            store.begin(Cut.local(1, 2, 0, 42)).commit();
            assertThrows(IllegalArgumentException.class, () -> store.begin(Cut.local(1, 3, 0, 42)));
        }
    }

    @Test
    void beginBeforeRestoreIsRefused() throws IOException
    {
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            assertThrows(IllegalStateException.class, () -> store.begin(Cut.local(0, 1, 0, 42)));
        }
    }

    @Test
    void unalignedAndHeapBuffersAreWrittenThroughAStagingCopy() throws IOException
    {
        final byte[] data = bytes(1, 6000);
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            store.restore(log::add);
            final GenerationWriter writer = store.begin(Cut.local(0, 1, 0, 42));
            final ByteBuffer heap = ByteBuffer.allocate(7000).position(3);
            heap.put(data).flip().position(3);
            writer.save("heap", heap, 1);
            assertEquals(3, heap.position(), "the source is left unchanged");
            final ByteBuffer aligned = Fixture.aligned(data);
            writer.save("aligned", aligned, 1);
            assertEquals(6000, aligned.remaining());
            writer.commit();
        }
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            final RestorePoint point = store.restore(log::add);
            assertArrayEquals(data, read(point, "heap"));
            assertArrayEquals(data, read(point, "aligned"));
        }
    }

    @Test
    void aCompletedRunIsNotRestoredAndStartsAfresh() throws IOException
    {
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            store.restore(log::add);
            commit(store, Map.of("a", bytes(1, 5000)), 1);
            commit(store, Map.of("a", bytes(2, 5000)), 2);
            store.markComplete();
        }
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            assertNull(store.restore(log::add));
            assertEquals(0, store.incarnation());
            assertEquals(2, store.nextGeneration());
            assertEquals(List.of(), Fixture.files(dir), "the finished run's files are gone");
            assertTrue(log.get(0).contains("completed"), log.toString());
            commit(store, Map.of("b", bytes(3, 10)), 1);
        }
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            final RestorePoint point = store.restore(log::add);
            assertEquals(2, point.cut().generation());
            assertEquals(0, point.cut().incarnation());
            assertEquals(List.of("b"), List.copyOf(point.blocks().keySet()));
        }
    }

    @Test
    void progressSurvivesIntoTheNextRun() throws IOException
    {
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            store.restore(log::add);
            commit(store, Map.of("a", bytes(1, 100)), 1);
            store.progress(7);
            store.progress(123_456_789_012L);
        }
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            final RestorePoint point = store.restore(log::add);
            assertEquals(123_456_789_012L, point.previousRunCompleted());
            assertTrue(point.explanation().contains("123456789012 tasks"), point.explanation());
            store.progress(5);
        }
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            assertEquals(5, store.restore(log::add).previousRunCompleted());
        }
    }

    @Test
    void progressIsUnknownWhenNeverRecorded() throws IOException
    {
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            store.restore(log::add);
            commit(store, Map.of("a", bytes(1, 100)), 1);
        }
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            assertEquals(-1, store.restore(log::add).previousRunCompleted());
        }
    }

    @Test
    void closeAbandonsAGenerationInFlight() throws IOException
    {
        try (FileCheckpointStore store = FileCheckpointStore.open(dir))
        {
            store.restore(log::add);
            store.begin(Cut.local(0, 1, 0, 42)).save("a", Fixture.aligned(bytes(1, 100)), 1);
        }
        assertEquals(List.of(Generations.STARTS), Fixture.files(dir), "only the run's start is left");
    }
}
