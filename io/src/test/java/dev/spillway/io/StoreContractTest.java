package dev.spillway.io;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The {@link Store} contract, run against each implementation by a subclass. */
abstract class StoreContractTest
{
    static final int KIB = 1024;
    static final int MIB = 1024 * KIB;
    static final int AVERAGE_BLOCK = 256 * KIB;
    static final int MAX_BLOCKS = 64;
    /** A cap that the tests other than the cap tests do not reach. */
    static final long ROOMY_CAP = 16L * MIB;
    /** A cap that about 15 average blocks fill. */
    static final long SMALL_CAP = 4L * MIB;

    @TempDir
    Path dir;

    private final List<Store> opened = new ArrayList<>();

    /** @return a new store of the implementation under test. */
    abstract Store openStore(StoreSettings settings) throws IOException;

    @AfterEach
    void closeStores() throws IOException
    {
        for (final Store store : opened)
        {
            store.close();
        }
    }

    Store open(final long capBytes) throws IOException
    {
        final Store store = openStore(new StoreSettings(dir, capBytes, AVERAGE_BLOCK, MAX_BLOCKS));
        opened.add(store);
        return store;
    }

    /**
     * A store sized for a mix of block sizes ({@link StoreSettings#forBlocks}) and capped at
     * {@link Stores#diskBytesBound} holds all of them at once, rewritten in a shuffled order, within the bound.
     */
    @Test
    void sizedForItsBlocksItHoldsAllOfThemWithinTheBound() throws IOException
    {
        final int[] sizes = new int[96];
        for (int i = 0; i < sizes.length; i++)
        {
            sizes[i] = i % 8 == 0 ? 1000 : i % 8 == 1 ? 300 * KIB + 5 : i % 8 == 2 ? 4096 : 96 * KIB;
        }
        final StoreSettings sized = StoreSettings.forBlocks(dir, sizes);
        final long bound = Stores.diskBytesBound(kind(), sized, sizes);
        final Store store = openStore(new StoreSettings(dir, bound, sized.averageBlockBytes(), sized.maxBlocks()));
        opened.add(store);
        final List<Integer> order = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++)
        {
            order.add(i);
        }
        for (int version = 1; version <= 3; version++)
        {
            java.util.Collections.shuffle(order, new Random(version));
            for (final int i : order)
            {
                store.write("b" + i, block(store, sizes[i], i * 7 + version), version);
                assertTrue(store.diskBytesUsed() <= bound, store.diskBytesUsed() + " > bound " + bound);
            }
        }
        for (int i = 0; i < sizes.length; i++)
        {
            final ByteBuffer dst = buffer(store, sizes[i]);
            assertEquals(sizes[i], store.read("b" + i, dst));
            assertArrayEquals(bytes(sizes[i], i * 7 + 3), contents(dst, sizes[i]), "block b" + i);
        }
    }

    /** @return the implementation under test. */
    abstract StoreKind kind();

    @Test
    void roundTripsBlocksOfSeveralSizes() throws IOException
    {
        final Store store = open(ROOMY_CAP);
        final int[] lengths = {0, 1, 4096, 64 * KIB + 123, MIB, 4 * MIB};
        for (final int length : lengths)
        {
            final ByteBuffer src = block(store, length, length);
            store.write("t" + length, src, 1);
            assertEquals(0, src.position(), "write leaves the position unchanged");
        }
        for (final int length : lengths)
        {
            final ByteBuffer dst = buffer(store, length);
            assertEquals(length, store.read("t" + length, dst));
            assertEquals(0, dst.position(), "read leaves the position unchanged");
            assertArrayEquals(bytes(length, length), contents(dst, length), "block t" + length);
        }
    }

    @Test
    void overwriteReturnsTheNewestVersion() throws IOException
    {
        final Store store = open(ROOMY_CAP);
        store.write("a", block(store, 100_000, 1), 1);
        store.write("a", block(store, 300_000, 2), 2);
        store.write("a", block(store, 5000, 3), 3);
        final ByteBuffer dst = buffer(store, 300_000);
        assertEquals(5000, store.read("a", dst));
        assertArrayEquals(bytes(5000, 3), contents(dst, 5000));
        final CRC32C crc = new CRC32C();
        crc.update(bytes(5000, 3));
        assertEquals(new BlockInfo(5000, 3, (int)crc.getValue()), store.info("a"));
    }

    @Test
    void unknownTagIsNotFound() throws IOException
    {
        final Store store = open(ROOMY_CAP);
        final BlockNotFoundException e =
            assertThrows(BlockNotFoundException.class, () -> store.read("nope", buffer(store, 10)));
        assertTrue(e.getMessage().contains("'nope'"), e.getMessage());
        assertNull(store.info("nope"));
        store.delete("nope");
    }

    @Test
    void corruptedByteOnDiskIsDetected() throws IOException
    {
        final Store store = open(ROOMY_CAP);
        store.write("good", block(store, 50_000, 7), 1);
        store.write("victim", block(store, 50_000, 8), 1);
        final Location at = find(bytes(50_000, 8));
        try (FileChannel channel = FileChannel.open(at.file(), StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, at.offset() + 1000);
            one.put(0, (byte)~one.get(0)).rewind();
            channel.write(one, at.offset() + 1000);
        }
        final BlockCorruptedException e =
            assertThrows(BlockCorruptedException.class, () -> store.read("victim", buffer(store, 50_000)));
        assertTrue(e.getMessage().contains("'victim'") && e.getMessage().contains("expected"), e.getMessage());
        assertEquals(50_000, store.read("good", buffer(store, 50_000)));
    }

    @Test
    void truncatedFileIsDetected() throws IOException
    {
        final Store store = open(ROOMY_CAP);
        store.write("victim", block(store, 50_000, 9), 1);
        final Location at = find(bytes(50_000, 9));
        try (FileChannel channel = FileChannel.open(at.file(), StandardOpenOption.WRITE))
        {
            channel.truncate(at.offset() + 25_000);
        }
        final BlockCorruptedException e =
            assertThrows(BlockCorruptedException.class, () -> store.read("victim", buffer(store, 50_000)));
        assertTrue(e.getMessage().contains("'victim'") && e.getMessage().contains("expected"), e.getMessage());
    }

    @Test
    void capReachedLeavesEarlierBlocksReadable() throws IOException
    {
        final long cap = SMALL_CAP;
        final Store store = open(cap);
        final int written = fill(store, cap);
        assertTrue(written >= 8, "wrote " + written + " blocks under a cap of " + cap);
        assertTrue(store.diskBytesUsed() <= cap, store.diskBytesUsed() + " bytes used");

        final StoreFullException bigger =
            assertThrows(StoreFullException.class, () -> store.write("f0", block(store, 2 * AVERAGE_BLOCK, 99), 2));
        assertTrue(bigger.getMessage().contains("'f0'") && bigger.getMessage().contains(Long.toString(cap)),
            bigger.getMessage());
        assertEquals(1, store.info("f0").version());

        store.delete("f1");
        store.write("g", block(store, AVERAGE_BLOCK, 50), 1);
        assertContents(store, "g", AVERAGE_BLOCK, 50);
        for (int i = 0; i < written; i++)
        {
            if (i != 1)
            {
                assertContents(store, "f" + i, AVERAGE_BLOCK, i);
            }
        }

        store.delete("f2");
        store.delete("f3");
        store.write("f0", block(store, 2 * AVERAGE_BLOCK, 99), 2);
        assertContents(store, "f0", 2 * AVERAGE_BLOCK, 99);
        assertEquals(2, store.info("f0").version());
        assertContents(store, "g", AVERAGE_BLOCK, 50);
        assertTrue(store.diskBytesUsed() <= cap, store.diskBytesUsed() + " bytes used");
    }

    @Test
    void randomWritesAndDeletesNearTheCapMatchAModel() throws IOException
    {
        final Store store = open(SMALL_CAP);
        final Random random = new Random(2026);
        final Map<String, int[]> model = new HashMap<>(); // tag -> {length, seed and version}
        int full = 0;
        for (int op = 0; op < 400; op++)
        {
            final String tag = "r" + random.nextInt(24);
            if (random.nextInt(5) == 0)
            {
                store.delete(tag);
                model.remove(tag);
                continue;
            }
            final int length = 1 + random.nextInt(2 * AVERAGE_BLOCK);
            try
            {
                store.write(tag, block(store, length, op), op);
                model.put(tag, new int[] {length, op});
            }
            catch (final StoreFullException e)
            {
                full++;
                assertTrue(e.getMessage().contains("'" + tag + "'"), e.getMessage());
            }
            if (model.containsKey(tag))
            {
                assertContents(store, tag, model.get(tag)[0], model.get(tag)[1]);
            }
            if (op % 20 == 0)
            {
                assertMatches(store, model);
            }
        }
        assertMatches(store, model);
        assertTrue(full > 0 && full < 200, full + " writes found the store full");
    }

    @Test
    void deleteFreesSpaceForReuse() throws IOException
    {
        final long cap = SMALL_CAP;
        final Store store = open(cap);
        final int written = fill(store, cap);
        final long used = store.diskBytesUsed();
        store.delete("f3");
        assertThrows(BlockNotFoundException.class, () -> store.read("f3", buffer(store, AVERAGE_BLOCK)));
        assertNull(store.info("f3"));
        store.write("again", block(store, AVERAGE_BLOCK, 42), 1);
        assertTrue(store.diskBytesUsed() <= used, "reused space: " + store.diskBytesUsed() + " > " + used);
        final ByteBuffer dst = buffer(store, AVERAGE_BLOCK);
        assertEquals(AVERAGE_BLOCK, store.read("again", dst));
        assertArrayEquals(bytes(AVERAGE_BLOCK, 42), contents(dst, AVERAGE_BLOCK));
        assertEquals(AVERAGE_BLOCK, store.read("f" + (written - 1), dst));
    }

    @Test
    void closeRemovesTheStoreDirectory() throws IOException
    {
        final Store store = open(ROOMY_CAP);
        store.write("a", block(store, 10_000, 1), 1);
        final List<Path> dirs = storeDirs();
        assertEquals(1, dirs.size(), dirs.toString());
        assertEquals(Long.toString(ProcessHandle.current().pid()),
            Files.readString(dirs.get(0).resolve(StoreDirectory.OWNER_FILE)).trim().split(" ")[0]);
        assertTrue(store.diskBytesUsed() > 0);
        store.close();
        assertTrue(storeDirs().isEmpty(), storeDirs().toString());
    }

    @Test
    void openRemovesDirectoriesOfDeadProcessesOnly() throws IOException, InterruptedException
    {
        assumeTrue(ProcessHandle.of(999_999).isEmpty());
        final Path invented = ownedDir("spillway-999999-x", "999999");
        final Process child = new ProcessBuilder("sleep", "60").start();
        final Path killed = ownedDir("spillway-" + child.pid() + "-y", Long.toString(child.pid()));
        child.destroyForcibly();
        assertTrue(child.waitFor(10, TimeUnit.SECONDS));
        final Path live = ownedDir("spillway-" + ProcessHandle.current().pid() + "-z",
            Long.toString(ProcessHandle.current().pid()));
        final Path foreign = Files.createDirectories(dir.resolve("not-spillway-1"));

        open(ROOMY_CAP);

        assertFalse(Files.exists(invented), "directory of pid 999999");
        assertFalse(Files.exists(killed), "directory of the killed child");
        assertTrue(Files.exists(live.resolve("data.bin")), "directory of this live process");
        assertTrue(Files.exists(foreign));
    }

    /** Writes {@code f0, f1, ...} of {@link #AVERAGE_BLOCK} bytes until the store is full; @return how many fit. */
    private int fill(final Store store, final long cap) throws IOException
    {
        for (int i = 0; i < MAX_BLOCKS; i++)
        {
            try
            {
                store.write("f" + i, block(store, AVERAGE_BLOCK, i), 1);
            }
            catch (final StoreFullException e)
            {
                assertTrue(e.getMessage().contains("'f" + i + "'") && e.getMessage().contains(Long.toString(cap)),
                    e.getMessage());
                assertNull(store.info("f" + i), "nothing visible of the failed write");
                return i;
            }
        }
        throw new AssertionError(MAX_BLOCKS + " blocks fit under a cap of " + cap);
    }

    private static void assertMatches(final Store store, final Map<String, int[]> model) throws IOException
    {
        for (final Map.Entry<String, int[]> block : model.entrySet())
        {
            final int[] expected = block.getValue();
            assertContents(store, block.getKey(), expected[0], expected[1]);
            assertEquals(expected[1], store.info(block.getKey()).version());
        }
        assertTrue(store.diskBytesUsed() <= SMALL_CAP, store.diskBytesUsed() + " bytes used");
    }

    private static void assertContents(final Store store, final String tag, final int length, final int seed)
        throws IOException
    {
        final ByteBuffer dst = buffer(store, length);
        assertEquals(length, store.read(tag, dst));
        assertArrayEquals(bytes(length, seed), contents(dst, length), "block " + tag);
    }

    private Path ownedDir(final String name, final String pid) throws IOException
    {
        final Path owned = Files.createDirectories(dir.resolve(name));
        Files.writeString(owned.resolve(StoreDirectory.OWNER_FILE), pid + "\n");
        Files.write(owned.resolve("data.bin"), new byte[100]);
        return owned;
    }

    private List<Path> storeDirs() throws IOException
    {
        try (Stream<Path> paths = Files.list(dir))
        {
            return paths.filter(p -> p.getFileName().toString().startsWith(StoreDirectory.PREFIX)).toList();
        }
    }

    /** Where a byte pattern lies on disk. */
    record Location(Path file, long offset)
    {
    }

    /** @return the only place in the store's files where {@code pattern}'s first 64 bytes occur. */
    Location find(final byte[] pattern) throws IOException
    {
        final byte[] needle = new byte[64];
        System.arraycopy(pattern, 0, needle, 0, needle.length);
        final List<Location> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir))
        {
            for (final Path file : files.filter(Files::isRegularFile).toList())
            {
                final byte[] content = Files.readAllBytes(file);
                for (int i = 0; i + needle.length <= content.length; i++)
                {
                    if (content[i] == needle[0] && Arrays.equals(content, i, i + needle.length, needle, 0, needle.length))
                    {
                        found.add(new Location(file, i));
                    }
                }
            }
        }
        assertEquals(1, found.size(), "places holding the pattern: " + found);
        return found.get(0);
    }

    /** @return a buffer as the contract asks: direct, aligned, with room for {@code length} rounded up. */
    static ByteBuffer buffer(final Store store, final int length)
    {
        final int alignment = store.alignment();
        final int rounded = (length + alignment - 1) / alignment * alignment;
        return ByteBuffer.allocateDirect(rounded + alignment).alignedSlice(alignment).limit(length);
    }

    /** @return a contract buffer holding {@link #bytes} of {@code length} and {@code seed}. */
    static ByteBuffer block(final Store store, final int length, final int seed)
    {
        final ByteBuffer buffer = buffer(store, length);
        buffer.put(bytes(length, seed)).flip();
        return buffer;
    }

    /** @return pseudo-random bytes, different for each seed. */
    static byte[] bytes(final int length, final int seed)
    {
        final byte[] bytes = new byte[length];
        new Random(seed * 31L + length).nextBytes(bytes);
        return bytes;
    }

    static byte[] contents(final ByteBuffer buffer, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.duplicate().position(0).get(bytes, 0, length);
        return bytes;
    }
}
