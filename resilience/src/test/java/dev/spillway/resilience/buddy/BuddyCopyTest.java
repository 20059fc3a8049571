package dev.spillway.resilience.buddy;

import dev.spillway.checkpoint.Cut;
import dev.spillway.checkpoint.GenerationWriter;
import dev.spillway.checkpoint.RestorePoint;
import dev.spillway.rdma.Collectives;
import dev.spillway.rdma.Header;
import dev.spillway.rdma.InProcessFabric;
import dev.spillway.rdma.Transport;
import dev.spillway.resilience.store.FileCheckpointStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link BuddyCheckpoints} between two ranks of an {@link InProcessFabric}: generations committed in a rank's store
 * reach its buddy's copy, which keeps the three newest and restores them through a {@link FileCheckpointStore}; a rank
 * whose directory is gone fetches the copy back; with both gone, "no surviving copy". Chunks travel as messages here,
 * put into the buddy's ring in {@link BuddyCopyOverPutsTest}.
 */
class BuddyCopyTest
{
    private static final Duration LIMIT = Duration.ofMinutes(2);
    private static final int BLOCK = 3 * 4096 + 17;

    @TempDir
    Path root;

    /** @return how chunks travel to the buddy. */
    BuddyCheckpoints.Stream stream()
    {
        return BuddyCheckpoints.Stream.MESSAGES;
    }

    /** @return rank {@code r} of {@code fabric}, as the copies use it. */
    Transport transport(final InProcessFabric fabric, final int r)
    {
        return fabric.transport(r);
    }

    @Test
    void copiesReachTheBuddyAndComeBack() throws Exception
    {
        final Map<String, byte[]> blocks = new TreeMap<>();
        for (int t = 0; t < 3; t++)
        {
            blocks.put("tile-" + t, bytes(t, BLOCK + t * 5000));
        }
        try (InProcessFabric fabric = new InProcessFabric(2, LIMIT))
        {
            final List<BuddyCheckpoints> buddies = startAll(fabric, Cut.LOCAL);
            try (Stores stores = new Stores())
            {
                stores.commitAndCopy(buddies, blocks, 0);
                for (int g = 1; g < 4; g++)
                {
                    final Map<String, byte[]> changed = Map.of("tile-" + g, bytes(100 + g, BLOCK));
                    blocks.putAll(changed);
                    stores.commitAndCopy(buddies, changed, g);
                }
            }
            buddies.forEach(BuddyCheckpoints::close);
        }
        final Path copy = root.resolve("rank-0").resolve("buddy-of-1");
        assertEquals(List.of("blocks-0.dat", "blocks-1.dat", "blocks-2.dat", "blocks-3.dat", "gen-1.manifest",
            "gen-2.manifest", "gen-3.manifest"), files(copy),
            "the copy keeps the three newest generations and the blocks they refer to");
        assertBlocks(blocks, restore(copy, 400), "the copy restores the newest generation as the rank wrote it");

        deleteTree(root.resolve("rank-1"));
        try (InProcessFabric fabric = new InProcessFabric(2, LIMIT))
        {
            final List<BuddyCheckpoints> buddies = startAll(fabric, 400);
            assertNull(buddies.get(0).restoredFrom(), "rank 0 had its own copy");
            assertTrue(buddies.get(1).restoredFrom().contains("fetched generation 3 from its buddy rank 0"),
                buddies.get(1).restoredFrom());
            buddies.forEach(BuddyCheckpoints::close);
        }
        assertBlocks(blocks, restore(root.resolve("rank-1"), 400), "the fetched copy restores as written");
    }

    /**
     * A generation of more chunks than the buddy keeps receives posted, or its ring has slots, goes through them in
     * turn, twice over: the copy is the rank's generation, byte for byte.
     */
    @Test
    void aGenerationOfMoreChunksThanTheBuddyTakesAtOnceArrivesWhole() throws Exception
    {
        final int large = BuddyWire.CHUNK_BYTES * 2 + 12_345;
        final Map<String, byte[]> blocks = new TreeMap<>();
        for (int t = 0; t < 3; t++)
        {
            blocks.put("large-" + t, bytes(200 + t, large));
        }
        assertTrue(3L * large > (long) Math.max(BuddyWire.SLOTS, BuddyKeeper.POSTED) * BuddyWire.CHUNK_BYTES,
            "the generation must need more slots than the ring has, and more receives than the buddy posts");
        try (InProcessFabric fabric = new InProcessFabric(2, LIMIT))
        {
            final List<BuddyCheckpoints> buddies = startAll(fabric, Cut.LOCAL);
            try (Stores stores = new Stores())
            {
                stores.commitAndCopy(buddies, blocks, 0);
                final Map<String, byte[]> changed = Map.of("large-1", bytes(300, large), "large-2", bytes(301, large));
                blocks.putAll(changed);
                stores.commitAndCopy(buddies, changed, 1);
            }
            buddies.forEach(BuddyCheckpoints::close);
        }
        assertBlocks(blocks, restore(root.resolve("rank-0").resolve("buddy-of-1"), 200),
            "the copy restores the newest generation as the rank wrote it");
    }

    /**
     * Rank 0's keeper stops for a reason of its own, here as it answers the end of rank 1's generation: rank 1's
     * copy, which waits for that answer, fails at once naming why instead of waiting until the job ends, and so does
     * every later one. The other way round, copies go on.
     */
    @Test
    void aKeeperThatStopsTellsItsPartnerWhoWaitsForItsAnswer() throws Exception
    {
        keeperStopsAsItsPartnerCopies(BLOCK, (keeper, writer) -> keeper.failSendsOf(BuddyWire.DURABLE_TAG,
            "answers refused"), "answers refused");
    }

    /**
     * As above, the keeper stopping after it took the messages its receives stood for: rank 1 waits for a send to be
     * taken, or for a slot of the ring, which the keeper never gives.
     */
    @Test
    void aKeeperThatStopsTellsItsPartnerWhoWaitsToSend() throws Exception
    {
        keeperStopsAsItsPartnerCopies(BuddyWire.CHUNK_BYTES * (BuddyWire.SLOTS + BuddyKeeper.POSTED + 1),
            (keeper, writer) -> keeper.failReceivesOf(BuddyWire.STREAM_TAG, "receives refused"), "receives refused");
    }

    /** A notice naming no slot of the ring stops the keeper as it arrives, before rank 1's next copy starts. */
    @Test
    void aKeeperThatCannotTakeANoticeTellsItsPartner() throws Exception
    {
        keeperStopsAsItsPartnerCopies(BLOCK, (keeper, writer) -> Collectives.await(writer.send(0,
            Header.of(BuddyWire.STREAM_TAG), ByteBuffer.allocateDirect(BuddyWire.NOTICE_BYTES).put(BuddyWire.SLOT)
                .putInt(BuddyWire.SLOTS + 1).putInt(1).flip())), "rank 1 sent a notice that names no slot of a ring");
    }

    /**
     * Rank 1 copies generation 0, then {@code fault} is done to rank 0's transport (or with rank 1's), then rank 1
     * copies generations of a block of {@code blockBytes}: each copy must fail naming rank 0's keeper and {@code why}.
     */
    private void keeperStopsAsItsPartnerCopies(final int blockBytes,
        final BiConsumer<FaultyTransport, Transport> fault, final String why) throws Exception
    {
        try (InProcessFabric fabric = new InProcessFabric(2, LIMIT))
        {
            final FaultyTransport keeperSide = new FaultyTransport(fabric.transport(0));
            final Transport writerSide = transport(fabric, 1);
            final List<BuddyCheckpoints> buddies = startAll(List.of(keeperSide, writerSide), Cut.LOCAL);
            try (Stores stores = new Stores())
            {
                stores.commitAndCopy(buddies, Map.of("a", bytes(1, BLOCK)), 0);
                fault.accept(keeperSide, writerSide);
                for (int version = 1; version < 3; version++)
                {
                    final Cut cut = commit(stores.stores.get(1), Map.of("a", bytes(version, blockBytes)), version);
                    final String failure = copyOutcome(buddies.get(1), cut);
                    assertNotNull(failure, "generation " + cut.generation() + " became durable at a buddy that " +
                        "stopped keeping copies");
                    assertTrue(failure.startsWith("copying generation " + cut.generation() + " to buddy rank 0 " +
                        "failed: buddy rank 0 stopped keeping rank 1's checkpoint copies: ") &&
                        failure.contains(why), failure);
                }
                copy(buddies.get(0), commit(stores.stores.get(0), Map.of("a", bytes(3, BLOCK)), 1));
            }
            buddies.forEach(BuddyCheckpoints::close);
        }
    }

    @Test
    void aRestartDropsCopiesNewerThanItsCutSoTheCutStaysKept() throws Exception
    {
        final Map<String, byte[]> blocks = new TreeMap<>(Map.of("a", bytes(1, BLOCK), "b", bytes(2, BLOCK)));
        final Map<String, byte[]> atCut = new TreeMap<>(blocks);
        // The cut at 200 is durable at the buddy, but never globally committed: the job restarts from the one at 100.
        twoCopiedCuts(blocks, Map.of("a", bytes(3, BLOCK)));
        final Path copy = root.resolve("rank-0").resolve("buddy-of-1");
        try (InProcessFabric fabric = new InProcessFabric(2, LIMIT))
        {
            final List<BuddyCheckpoints> buddies = startAll(fabric, 100);
            assertEquals(List.of("blocks-0.dat", "gen-0.manifest"), files(copy), "the copy newer than the cut");
            for (int r = 0; r < 2; r++)
            {
                try (FileCheckpointStore store = FileCheckpointStore.builder(root.resolve("rank-" + r)).globalCut(100)
                    .open())
                {
                    assertNotNull(store.restore(line -> { }));
                    copy(buddies.get(r), commit(store, Map.of("b", bytes(4, BLOCK)), 2));
                }
            }
            buddies.forEach(BuddyCheckpoints::close);
        }
        assertTrue(files(copy).containsAll(List.of("gen-0.manifest", "gen-2.manifest")), "the copy must keep the " +
            "global cut resumed from beside the newer generation: " + files(copy));
        assertBlocks(atCut, restore(copy, 100), "the cut resumed from, kept at the buddy");
    }

    @Test
    void withTheCopyGoneTooThereIsNoSurvivingCopy() throws Exception
    {
        try (InProcessFabric fabric = new InProcessFabric(2, LIMIT))
        {
            final List<BuddyCheckpoints> buddies = startAll(fabric, Cut.LOCAL);
            try (Stores stores = new Stores())
            {
                stores.commitAndCopy(buddies, Map.of("a", bytes(1, BLOCK)), 0);
            }
            buddies.forEach(BuddyCheckpoints::close);
        }
        deleteTree(root.resolve("rank-1"));
        deleteTree(root.resolve("rank-0").resolve("buddy-of-1"));
        try (InProcessFabric fabric = new InProcessFabric(2, LIMIT))
        {
            final List<CompletableFuture<BuddyCheckpoints>> started = start(fabric, 100);
            final ExecutionException e = assertThrows(ExecutionException.class,
                () -> started.get(1).get(LIMIT.toSeconds(), TimeUnit.SECONDS));
            assertInstanceOf(IOException.class, e.getCause());
            assertTrue(e.getCause().getMessage().startsWith("no surviving copy of rank 1's checkpoint of the " +
                "global cut at index 100: its own directory: the directory " + root.resolve("rank-1") +
                " is missing; its buddy rank 0: its copy: the directory " +
                root.resolve("rank-0").resolve("buddy-of-1") + " is missing"), e.getCause().getMessage());
            started.get(0).get(LIMIT.toSeconds(), TimeUnit.SECONDS).close();
        }
    }

    /**
     * Rank 1 loses its directory, and its buddy's copy of the newest global cut (200) is torn: every rank still holds
     * the cut at 100, locally or at its buddy, so the job resumes from it instead of failing.
     */
    @Test
    void whenTheAgreedCutSurvivesNowhereTheJobResumesFromAnOlderOneEveryRankHolds() throws Exception
    {
        final Map<String, byte[]> atFirstCut = Map.of("a", bytes(1, BLOCK), "b", bytes(2, BLOCK));
        twoCopiedCuts(atFirstCut, Map.of("a", bytes(3, BLOCK)));
        deleteTree(root.resolve("rank-1"));
        final Path copy = root.resolve("rank-0").resolve("buddy-of-1");
        Files.delete(copy.resolve("gen-1.manifest"));
        final List<String> log = resumeFrom200At100();
        assertTrue(log.contains("checkpoint: the global cut at index 200 survives neither in its own directory nor " +
            "at its buddy for rank(s) [1]; every rank holds the older global cut at index 100: the job resumes from " +
            "it"), log.toString());
        assertBlocks(atFirstCut, restore(root.resolve("rank-1"), 100), "rank 1's cut at 100, fetched from its buddy");
        assertBlocks(atFirstCut, restore(root.resolve("rank-0"), 100), "rank 0's own cut at 100");
    }

    /**
     * Rank 1 loses its directory, and a bit flips in the blocks file only its buddy's copy of the cut at 200 uses: the
     * fetched copy fails verification, and the job resumes from the cut at 100. With the older blocks flipped too, no
     * cut is left: rank 1 stops, naming the checksum.
     */
    @Test
    void aFetchedCopyThatFailsVerificationSendsTheJobToAnOlderCut() throws Exception
    {
        final Map<String, byte[]> atFirstCut = Map.of("a", bytes(1, BLOCK), "b", bytes(2, BLOCK));
        twoCopiedCuts(atFirstCut, Map.of("a", bytes(3, BLOCK)));
        deleteTree(root.resolve("rank-1"));
        final Path copy = root.resolve("rank-0").resolve("buddy-of-1");
        flipByte(copy.resolve("blocks-1.dat"), 100);
        final List<String> log = resumeFrom200At100();
        assertTrue(log.contains("checkpoint: the global cut at index 200 failed verification on rank(s) [1]; every " +
            "rank holds the older global cut at index 100: the job resumes from it"), log.toString());
        assertBlocks(atFirstCut, restore(root.resolve("rank-1"), 100), "rank 1's cut at 100, fetched again");

        deleteTree(root.resolve("rank-1"));
        flipByte(copy.resolve("blocks-0.dat"), 100);
        try (InProcessFabric fabric = new InProcessFabric(2, LIMIT))
        {
            final List<CompletableFuture<BuddyCheckpoints>> started = start(fabric, 100);
            final ExecutionException e = assertThrows(ExecutionException.class,
                () -> started.get(1).get(LIMIT.toSeconds(), TimeUnit.SECONDS));
            final String why = e.getCause().getMessage();
            assertTrue(why.startsWith("no surviving copy of rank 1's checkpoint of the global cut at index 100: its " +
                "own directory: the directory " + root.resolve("rank-1") + " is missing; its buddy rank 0: its copy, " +
                "fetched, failed verification: ") && why.contains("failed its checksum") &&
                why.endsWith("the job cannot resume: remove " + root + " to run it again from the beginning"), why);
            started.get(0).get(LIMIT.toSeconds(), TimeUnit.SECONDS).close();
        }
    }

    /**
     * A bit flips in rank 1's own copy of the cut at 200: the copy fails verification as the job starts, so rank 1
     * fetches the cut from its buddy, replacing the flipped file, instead of stopping at its store's restore.
     */
    @Test
    void aCutThatFailsVerificationInItsOwnDirectoryComesFromTheBuddy() throws Exception
    {
        final Map<String, byte[]> blocks = new TreeMap<>(Map.of("a", bytes(1, BLOCK), "b", bytes(2, BLOCK)));
        twoCopiedCuts(blocks, Map.of("a", bytes(3, BLOCK)));
        blocks.put("a", bytes(3, BLOCK));
        flipByte(root.resolve("rank-1").resolve("blocks-1.dat"), 100);
        try (InProcessFabric fabric = new InProcessFabric(2, LIMIT))
        {
            final List<BuddyCheckpoints> buddies = startAll(fabric, 200);
            assertEquals(List.of(200L, 200L), buddies.stream().map(BuddyCheckpoints::restored).toList(),
                "the cut resumed from");
            assertNull(buddies.get(0).restoredFrom(), "rank 0's own copy verifies");
            final String from = buddies.get(1).restoredFrom();
            assertTrue(from != null && from.startsWith("rank 1's own directory cannot restore the global cut at " +
                "index 200 (its copy there failed verification: ") && from.contains("fetched generation 1 from its " +
                "buddy rank 0"), from);
            buddies.forEach(BuddyCheckpoints::close);
        }
        assertBlocks(blocks, restore(root.resolve("rank-1"), 200), "rank 1's cut at 200, fetched from its buddy");
    }

    /** @return what the ranks logged, once each started at the agreed cut at 200 and resumed from the one at 100. */
    private List<String> resumeFrom200At100() throws Exception
    {
        final List<String> log = new CopyOnWriteArrayList<>();
        try (InProcessFabric fabric = new InProcessFabric(2, LIMIT))
        {
            for (final CompletableFuture<BuddyCheckpoints> f : start(fabric, 200, log::add))
            {
                final BuddyCheckpoints b = f.get(LIMIT.toSeconds(), TimeUnit.SECONDS);
                assertEquals(100, b.restored(), "the cut resumed from; log: " + log);
                b.close();
            }
        }
        return log;
    }

    private static void flipByte(final Path file, final int offset) throws IOException
    {
        final byte[] bytes = Files.readAllBytes(file);
        bytes[offset] ^= 0x01;
        Files.write(file, bytes);
    }

    @Test
    void aGenerationTheBuddyCannotCompleteIsSentWholeAgain() throws Exception
    {
        final Map<String, byte[]> blocks = new TreeMap<>(Map.of("a", bytes(1, BLOCK), "b", bytes(2, BLOCK)));
        try (InProcessFabric fabric = new InProcessFabric(2, LIMIT))
        {
            final List<BuddyCheckpoints> buddies = startAll(fabric, Cut.LOCAL);
            try (Stores stores = new Stores())
            {
                stores.commitAndCopy(buddies, blocks, 0);
                // The buddy loses the blocks file generation 1 inherits; the rank believes it is there.
                Files.delete(root.resolve("rank-0").resolve("buddy-of-1").resolve("blocks-0.dat"));
                blocks.put("a", bytes(3, BLOCK));
                stores.commitAndCopy(buddies, Map.of("a", blocks.get("a")), 1);
            }
            buddies.forEach(BuddyCheckpoints::close);
        }
        assertBlocks(blocks, restore(root.resolve("rank-0").resolve("buddy-of-1"), 200), "the copy sent again");
    }

    @Test
    void incomingFilesRefuseBadChunksAndForeignNames() throws Exception
    {
        final IncomingFiles files = new IncomingFiles(root);
        final ByteBuffer data = ByteBuffer.wrap(bytes(7, 100));
        final ByteBuffer chunk = ByteBuffer.allocate(BuddyWire.FIELDS_BYTES + 100);
        BuddyWire.chunkFields(chunk, 4, "blocks-4.dat", 100, 0, BuddyWire.crc(data) ^ 1);
        chunk.put(data.duplicate()).flip().get();
        assertTrue(assertThrows(IOException.class, () -> files.chunk(chunk)).getMessage()
            .contains("failed its CRC32C check"));

        final ByteBuffer half = ByteBuffer.allocate(BuddyWire.FIELDS_BYTES + 100);
        final ByteBuffer first = data.duplicate().limit(50);
        BuddyWire.chunkFields(half, 4, "blocks-4.dat", 100, 0, BuddyWire.crc(first));
        half.put(first).flip().get();
        files.chunk(half);
        assertTrue(assertThrows(IOException.class, () -> files.finish(4, List.of("blocks-4.dat", "gen-4.manifest")))
            .getMessage().contains("blocks-4.dat is incomplete: 50 of 100 bytes arrived"));
        assertEquals(List.of(), files(root), "nothing of the failed generation stays");

        final ByteBuffer foreign = ByteBuffer.allocate(BuddyWire.FIELDS_BYTES);
        BuddyWire.chunkFields(foreign, 4, "../../etc/passwd", 1, 0, 0);
        foreign.flip().get();
        assertThrows(IllegalArgumentException.class, () -> files.chunk(foreign));
    }

    @Test
    void aFileOfSeveralChunksArrivesExactlyAndChunksMustBeWhole() throws Exception
    {
        final Path dir = root.resolve("copy");
        final IncomingFiles files = new IncomingFiles(dir);
        final byte[] file = bytes(9, 2 * BuddyWire.CHUNK_BYTES + 5000);
        for (int offset = 0; offset < file.length; offset += BuddyWire.CHUNK_BYTES)
        {
            files.chunk(chunk("blocks-3.dat", file, offset, Math.min(BuddyWire.CHUNK_BYTES, file.length - offset)));
        }
        files.finish(3, List.of("blocks-3.dat"));
        assertArrayEquals(file, Files.readAllBytes(dir.resolve("blocks-3.dat")),
            "the file as sent, its padded last chunk cut to its size");

        files.chunk(chunk("blocks-4.dat", file, 0, 100));
        assertTrue(assertThrows(IOException.class, () -> files.chunk(chunk("blocks-4.dat", file, 100, 100)))
            .getMessage().contains("in whole chunks of " + BuddyWire.CHUNK_BYTES + " bytes"));
    }

    /** A chunk message of {@code length} bytes of {@code file} from {@code offset}, positioned after its kind. */
    private static ByteBuffer chunk(final String name, final byte[] file, final int offset, final int length)
    {
        final ByteBuffer data = ByteBuffer.wrap(file, offset, length).slice();
        final ByteBuffer message = ByteBuffer.allocate(BuddyWire.FIELDS_BYTES + length);
        BuddyWire.chunkFields(message, 3, name, file.length, offset, BuddyWire.crc(data));
        return message.put(data).flip().position(1);
    }

    /**
     * A job from the beginning commits {@code first} (version 0) at the cut at 100, then {@code second} (version 1)
     * at the cut at 200, every generation copied to the buddy.
     */
    private void twoCopiedCuts(final Map<String, byte[]> first, final Map<String, byte[]> second) throws Exception
    {
        try (InProcessFabric fabric = new InProcessFabric(2, LIMIT))
        {
            final List<BuddyCheckpoints> buddies = startAll(fabric, Cut.LOCAL);
            try (Stores stores = new Stores())
            {
                stores.commitAndCopy(buddies, first, 0);
                stores.commitAndCopy(buddies, second, 1);
            }
            buddies.forEach(BuddyCheckpoints::close);
        }
    }

    private List<CompletableFuture<BuddyCheckpoints>> start(final InProcessFabric fabric, final long restored)
    {
        return start(fabric, restored, line -> { });
    }

    /** Starts {@link BuddyCheckpoints} on every rank at once, as the collective it is. */
    private List<CompletableFuture<BuddyCheckpoints>> start(final InProcessFabric fabric, final long restored,
        final Consumer<String> log)
    {
        final List<Transport> transports = new ArrayList<>();
        for (int r = 0; r < fabric.size(); r++)
        {
            transports.add(transport(fabric, r));
        }
        return start(transports, restored, log);
    }

    private List<CompletableFuture<BuddyCheckpoints>> start(final List<Transport> transports, final long restored,
        final Consumer<String> log)
    {
        final List<CompletableFuture<BuddyCheckpoints>> started = new ArrayList<>();
        for (final Transport transport : transports)
        {
            started.add(CompletableFuture.supplyAsync(() ->
            {
                try
                {
                    return BuddyCheckpoints.start(transport, root, restored, stream(), log);
                }
                catch (final IOException e)
                {
                    throw new CompletionException(e);
                }
            }));
        }
        return started;
    }

    private List<BuddyCheckpoints> startAll(final InProcessFabric fabric, final long restored) throws Exception
    {
        return startAll(start(fabric, restored));
    }

    private List<BuddyCheckpoints> startAll(final List<Transport> transports, final long restored) throws Exception
    {
        return startAll(start(transports, restored, line -> { }));
    }

    private static List<BuddyCheckpoints> startAll(final List<CompletableFuture<BuddyCheckpoints>> started)
        throws Exception
    {
        final List<BuddyCheckpoints> all = new ArrayList<>();
        for (final CompletableFuture<BuddyCheckpoints> f : started)
        {
            all.add(f.get(LIMIT.toSeconds(), TimeUnit.SECONDS));
        }
        return all;
    }

    /** Each rank's own store, committing the same generations. */
    private final class Stores implements AutoCloseable
    {
        private final List<FileCheckpointStore> stores = new ArrayList<>();

        Stores() throws IOException
        {
            for (int r = 0; r < 2; r++)
            {
                final FileCheckpointStore store = FileCheckpointStore.open(root.resolve("rank-" + r));
                assertNull(store.restore(line -> { }));
                stores.add(store);
            }
        }

        /** Commits {@code blocks} (the others inherited) on every rank; waits until each copy is durable. */
        void commitAndCopy(final List<BuddyCheckpoints> buddies, final Map<String, byte[]> blocks, final long version)
            throws Exception
        {
            for (int r = 0; r < stores.size(); r++)
            {
                copy(buddies.get(r), commit(stores.get(r), blocks, version));
            }
        }

        @Override
        public void close() throws IOException
        {
            for (final FileCheckpointStore store : stores)
            {
                store.close();
            }
        }
    }

    private static Cut commit(final FileCheckpointStore store, final Map<String, byte[]> blocks, final long version)
        throws IOException
    {
        final long generation = store.nextGeneration();
        final Cut cut = new Cut(generation, 10 * (generation + 1), 100 * (generation + 1), store.incarnation(), 42);
        final GenerationWriter writer = store.begin(cut);
        for (final Map.Entry<String, byte[]> block : blocks.entrySet())
        {
            writer.save(block.getKey(), aligned(block.getValue()), version);
        }
        writer.commit();
        return cut;
    }

    private static void copy(final BuddyCheckpoints buddies, final Cut cut) throws InterruptedException
    {
        final String failure = copyOutcome(buddies, cut);
        assertNull(failure, "copying generation " + cut.generation() + " failed: " + failure);
    }

    /** @return why copying {@code cut}'s generation failed, or null once it is durable at the buddy. */
    private static String copyOutcome(final BuddyCheckpoints buddies, final Cut cut) throws InterruptedException
    {
        final CountDownLatch ended = new CountDownLatch(1);
        final AtomicReference<String> failure = new AtomicReference<>();
        buddies.copy(cut, ended::countDown, why ->
        {
            failure.set(why);
            ended.countDown();
        });
        assertTrue(ended.await(LIMIT.toSeconds(), TimeUnit.SECONDS), "generation " + cut.generation() +
            " neither became durable at the buddy nor failed; the copy was " + buddies.state());
        return failure.get();
    }

    private static Map<String, byte[]> restore(final Path dir, final long globalIndex) throws IOException
    {
        try (FileCheckpointStore store = FileCheckpointStore.builder(dir).globalCut(globalIndex).open())
        {
            final RestorePoint point = store.restore(line -> { });
            assertNotNull(point, "nothing to restore in " + dir);
            assertEquals(globalIndex, point.cut().globalIndex());
            final Map<String, byte[]> out = new TreeMap<>();
            for (final String tag : point.blocks().keySet())
            {
                final ByteBuffer dst = ByteBuffer.allocateDirect(point.blocks().get(tag).length());
                final int read = point.read(tag, dst);
                final byte[] bytes = new byte[read];
                dst.get(0, bytes);
                out.put(tag, bytes);
            }
            return out;
        }
    }

    private static void assertBlocks(final Map<String, byte[]> expected, final Map<String, byte[]> actual,
        final String what)
    {
        assertEquals(expected.keySet(), actual.keySet(), what);
        expected.forEach((tag, bytes) -> assertArrayEquals(bytes, actual.get(tag), what + ": block " + tag));
    }

    private static ByteBuffer aligned(final byte[] bytes)
    {
        final int capacity = (bytes.length + 4095) & -4096;
        final ByteBuffer buffer = ByteBuffer.allocateDirect(capacity + 4096).alignedSlice(4096);
        buffer.put(bytes).flip();
        return buffer;
    }

    private static byte[] bytes(final long seed, final int length)
    {
        final byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private static List<String> files(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.list(dir))
        {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    private static void deleteTree(final Path dir) throws IOException
    {
        try (Stream<Path> paths = Files.walk(dir))
        {
            for (final Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator)
            {
                Files.delete(p);
            }
        }
        assertFalse(Files.exists(dir));
    }
}
