package dev.spillway.io;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Corruption of a direct store's index file ({@code index.cmap}), written straight to the file while the store is
 * open, then read back through the store. The index is memory-mapped, so what is written to the file is what the
 * store reads next. It is never read back across runs: a store always creates a fresh directory, and the next open
 * removes the directory of a dead process, index and all
 * ({@link #theCorruptedIndexOfACrashedRunIsNeverReadButRemovedWithItsDirectory}).
 */
final class DirectIoIndexCorruptionTest
{
    private static final int BLOCKS = 12;
    private static final long SEED = 20_260_311L;
    /** {@code -Dspillway.indexFlips=exhaustive} flips every bit of the index file in turn (minutes), not a sample. */
    private static final boolean EVERY_BIT = "exhaustive".equals(System.getProperty("spillway.indexFlips"));
    /**
     * After this long a lookup is deemed stalled on a flipped lock word and the flip is undone, so the lookup goes on;
     * it only decides when the test steps in, never whether it passes.
     */
    private static final Duration STALL = Duration.ofSeconds(1);
    /** Safety net: Chronicle gives up on a lock after about a minute; sized for a 10x slower machine. */
    private static final Duration SAFETY_NET = Duration.ofMinutes(15);

    @TempDir
    Path dir;

    private DirectIoStore store;
    private Path index;

    @BeforeEach
    void writeBlocks() throws IOException
    {
        store = new DirectIoStore(new StoreSettings(dir, 64L << 20, 256 << 10, 64), 1 << 20);
        for (int b = 0; b < BLOCKS; b++)
        {
            store.write(tag(b), StoreContractTest.block(store, length(b), b), version(b));
        }
        try (Stream<Path> files = Files.walk(dir))
        {
            index = files.filter(p -> p.getFileName().toString().equals("index.cmap")).findFirst().orElseThrow();
        }
    }

    @AfterEach
    void closeStore() throws IOException
    {
        store.close();
    }

    @Test
    void everyBitFlipInABlocksIndexRecordFailsThatBlockNamingTheIndex() throws IOException
    {
        for (int b = 0; b < BLOCKS; b++)
        {
            final long record = recordOffset(b);
            for (int bit = 0; bit < BlockIndex.VALUE_BYTES * 8; bit++)
            {
                final String flipped = "bit " + bit + " of block-" + b + "'s record at offset " + record;
                flip(record + bit / 8, bit % 8);
                try
                {
                    final int victim = b;
                    final BlockCorruptedException onRead = assertThrows(BlockCorruptedException.class,
                        () -> store.read(tag(victim), buffer()), flipped);
                    assertNamesIndexAndTag(onRead, victim);
                    assertNamesIndexAndTag(assertThrows(BlockCorruptedException.class, () -> store.info(tag(victim)),
                        flipped), victim);
                    for (int other = 0; other < BLOCKS; other++)
                    {
                        if (other != b)
                        {
                            assertIntact(other, flipped);
                        }
                    }
                }
                finally
                {
                    flip(record + bit / 8, bit % 8);
                }
            }
        }
        for (int b = 0; b < BLOCKS; b++)
        {
            assertIntact(b, "after undoing every flip");
        }
    }

    @Test
    void seededBitFlipsAnywhereInTheIndexNeverReadBackWrongData() throws Exception
    {
        final byte[] original = Files.readAllBytes(index);
        final Random random = new Random(SEED);
        final List<long[]> flips = new ArrayList<>();
        for (int at = 0; at < original.length; at++)
        {
            if (EVERY_BIT)
            {
                for (int bit = 0; bit < 8; bit++)
                {
                    flips.add(new long[] {at, bit});
                }
            }
            else
            {
                // Every byte in use, and one in ten of the rest (unused entry space, mostly).
                final boolean sampled = random.nextInt(10) == 0;
                final int bit = random.nextInt(8);
                if (original[at] != 0 || sampled)
                {
                    flips.add(new long[] {at, bit});
                }
            }
        }
        final Map<String, Integer> outcomes = new TreeMap<>();
        final ExecutorService reader = Executors.newSingleThreadExecutor();
        try
        {
            for (final long[] flip : flips)
            {
                final long at = flip[0];
                final int bit = (int)flip[1];
                final String flipped = "bit " + bit + " of byte " + at + " of " + index;
                flip(at, bit);
                final Future<List<String>> reading = reader.submit(() -> readAll(flipped));
                List<String> seen;
                try
                {
                    seen = reading.get(STALL.toMillis(), TimeUnit.MILLISECONDS);
                    flip(at, bit);
                }
                catch (final ExecutionException e)
                {
                    throw new AssertionError(flipped + ": " + e.getCause(), e.getCause());
                }
                catch (final TimeoutException stalled)
                {
                    flip(at, bit); // a lock word: the waiting lookup goes on once the flip is undone
                    seen = List.of("lookup stalled until the flip was undone");
                    awaitQuietly(reading, flipped);
                }
                for (final String outcome : seen)
                {
                    outcomes.merge(outcome, 1, Integer::sum);
                }
            }
        }
        finally
        {
            reader.shutdownNow();
        }
        System.out.println(flips.size() + " bit flips in " + index.getFileName() + ", outcomes of reading the " +
            BLOCKS + " blocks after each: " + outcomes);
        assertTrue(outcomes.getOrDefault("detected: index record checksum", 0) > 0, "no flip hit a record: " + outcomes);
        for (int b = 0; b < BLOCKS; b++)
        {
            assertIntact(b, "after undoing every flip");
        }
    }

    @Test
    void rewritingABlockWhoseRecordIsCorruptedNeverFreesTheExtentItPointsAt() throws IOException
    {
        final long victimRecord = recordOffset(3);
        final long neighbourOffset = readLong(recordOffset(4) + BlockIndex.POSITION_OFFSET);
        writeLong(victimRecord + BlockIndex.POSITION_OFFSET, neighbourOffset); // block-3 now points at block-4

        store.write(tag(3), StoreContractTest.block(store, length(3), 33), version(3) + 1);
        store.write("newcomer", StoreContractTest.block(store, length(3), 44), 1);

        assertIntact(4, "after rewriting block-3 over its corrupted record and writing a block of its size");
        final ByteBuffer dst = buffer();
        assertEquals(length(3), store.read(tag(3), dst));
        assertArrayEquals(StoreContractTest.bytes(length(3), 33), StoreContractTest.contents(dst, length(3)));
    }

    @Test
    void aTruncatedIndexFailsEveryOperationNamingTheFileInsteadOfCrashing() throws IOException
    {
        final long length = Files.size(index);
        for (final long truncated : new long[] {length - 1, length / 2, 4096, 0})
        {
            try (FileChannel channel = FileChannel.open(index, StandardOpenOption.WRITE))
            {
                channel.truncate(truncated);
            }
            final String what = "index truncated from " + length + " to " + truncated + " bytes";
            for (int b = 0; b < BLOCKS; b++)
            {
                final int victim = b;
                assertTruncation(assertThrows(BlockCorruptedException.class,
                    () -> store.read(tag(victim), buffer()), what), victim);
                assertTruncation(assertThrows(BlockCorruptedException.class, () -> store.info(tag(victim)), what),
                    victim);
            }
            assertTruncation(assertThrows(BlockCorruptedException.class,
                () -> store.write(tag(0), StoreContractTest.block(store, 100, 7), 99), what), 0);
            assertTruncation(assertThrows(BlockCorruptedException.class, () -> store.delete(tag(1)), what), 1);
        }
    }

    @Test
    void theCorruptedIndexOfACrashedRunIsNeverReadButRemovedWithItsDirectory() throws IOException
    {
        assumeTrue(ProcessHandle.of(999_999).isEmpty());
        final Path crashed = dir.resolve("spillway-999999-1");
        try (Stream<Path> files = Files.list(index.getParent()))
        {
            Files.createDirectories(crashed);
            for (final Path file : files.toList())
            {
                Files.copy(file, crashed.resolve(file.getFileName()));
            }
        }
        Files.writeString(crashed.resolve(StoreDirectory.OWNER_FILE), "999999 1\n");
        final byte[] garbage = new byte[(int)Files.size(crashed.resolve("index.cmap"))];
        new Random(SEED).nextBytes(garbage);
        Files.write(crashed.resolve("index.cmap"), garbage);

        try (DirectIoStore next = new DirectIoStore(new StoreSettings(dir, 64L << 20, 256 << 10, 64), 1 << 20))
        {
            assertFalse(Files.exists(crashed), "the crashed run's directory is still there");
            assertNull(next.info(tag(0)), "a new store starts empty");
            assertThrows(BlockNotFoundException.class, () -> next.read(tag(0), buffer()));
        }
    }

    /** @return one outcome per block: intact, or how its corruption was reported; fails on anything else. */
    private List<String> readAll(final String flipped) throws IOException
    {
        final List<String> outcomes = new ArrayList<>();
        for (int b = 0; b < BLOCKS; b++)
        {
            try
            {
                final ByteBuffer dst = buffer();
                final int length = store.read(tag(b), dst);
                final BlockInfo info = store.info(tag(b));
                assertEquals(length(b), length, flipped + ": length of " + tag(b));
                assertArrayEquals(StoreContractTest.bytes(length(b), b), StoreContractTest.contents(dst, length(b)),
                    flipped + ": contents of " + tag(b));
                assertEquals(new BlockInfo(length(b), version(b), checksum(b)), info, flipped + ": info of " + tag(b));
                outcomes.add("intact");
            }
            catch (final BlockCorruptedException e)
            {
                assertNamesIndexAndTag(e, b);
                outcomes.add(e.getMessage().contains("failed its CRC32C check") ? "detected: index record checksum" :
                    "detected: index unreadable");
            }
            catch (final BlockNotFoundException e)
            {
                assertTrue(e.getMessage().contains("'" + tag(b) + "'") && e.getMessage().contains(index.toString()),
                    flipped + ": " + e.getMessage());
                outcomes.add("not found (its key or hash slot hit)");
            }
        }
        return outcomes;
    }

    /** Reads block {@code b} and its metadata; fails unless both are as written. */
    private void assertIntact(final int b, final String context) throws IOException
    {
        final ByteBuffer dst = buffer();
        final BlockInfo info = store.info(tag(b));
        assertEquals(version(b), info == null ? null : info.version(), context + ": version of " + tag(b));
        assertEquals(length(b), store.read(tag(b), dst), context + ": length of " + tag(b));
        assertArrayEquals(StoreContractTest.bytes(length(b), b), StoreContractTest.contents(dst, length(b)),
            context + ": contents of " + tag(b));
        assertEquals(length(b), info.length(), context + ": length in the info of " + tag(b));
    }

    private void assertNamesIndexAndTag(final BlockCorruptedException e, final int b)
    {
        assertTrue(e.getMessage().contains("'" + tag(b) + "'") && e.getMessage().contains(index.toString()),
            "the error names neither the block nor the index file: " + e.getMessage());
    }

    private void assertTruncation(final BlockCorruptedException e, final int b)
    {
        assertNamesIndexAndTag(e, b);
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
    }

    /** @return where block {@code b}'s record starts in the index file (found by its version, unique). */
    private long recordOffset(final int b) throws IOException
    {
        final byte[] file = Files.readAllBytes(index);
        final byte[] version = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(version(b)).array();
        final List<Integer> found = new ArrayList<>();
        for (int at = 0; at + version.length <= file.length; at++)
        {
            if (Arrays.equals(file, at, at + version.length, version, 0, version.length))
            {
                found.add(at - BlockIndex.VERSION_OFFSET);
            }
        }
        assertEquals(1, found.size(), "records holding version " + version(b) + " at " + found);
        return found.get(0);
    }

    private void flip(final long at, final int bit) throws IOException
    {
        try (FileChannel channel = FileChannel.open(index, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, at);
            one.put(0, (byte)(one.get(0) ^ (1 << bit))).rewind();
            channel.write(one, at);
        }
    }

    private long readLong(final long at) throws IOException
    {
        try (FileChannel channel = FileChannel.open(index, StandardOpenOption.READ))
        {
            final ByteBuffer eight = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
            channel.read(eight, at);
            return eight.getLong(0);
        }
    }

    private void writeLong(final long at, final long value) throws IOException
    {
        try (FileChannel channel = FileChannel.open(index, StandardOpenOption.WRITE))
        {
            channel.write(ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, value), at);
        }
    }

    private static void awaitQuietly(final Future<?> reading, final String flipped) throws InterruptedException
    {
        try
        {
            reading.get(SAFETY_NET.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final ExecutionException e)
        {
            throw new AssertionError(flipped + ": " + e.getCause(), e.getCause());
        }
        catch (final TimeoutException e)
        {
            throw new AssertionError(flipped + ": the lookup still waited " + SAFETY_NET + " after undoing the flip");
        }
    }

    private ByteBuffer buffer()
    {
        final ByteBuffer buffer = StoreContractTest.buffer(store, 8 << 10);
        return buffer.limit(buffer.capacity());
    }

    private static String tag(final int b)
    {
        return "block-" + b;
    }

    private static int length(final int b)
    {
        return 5000 + 100 * b;
    }

    private static int checksum(final int b)
    {
        final CRC32C crc = new CRC32C();
        crc.update(StoreContractTest.bytes(length(b), b));
        return (int)crc.getValue();
    }

    private static long version(final int b)
    {
        return 0x5EED_0000L + b;
    }
}
