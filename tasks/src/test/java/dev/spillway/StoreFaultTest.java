package dev.spillway;

import dev.spillway.io.BlockCorruptedException;
import dev.spillway.io.StoreFullException;
import dev.spillway.io.StoreKind;
import dev.spillway.io.StoreSettings;
import dev.spillway.io.Store;
import dev.spillway.io.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Faults of the NVMe tier, seen through the engine: a corrupted block and a full disk. */
@Timeout(600)
class StoreFaultTest
{
    private static final int SIZE = 16 << 10;

    @TempDir
    Path dir;

    @Test
    void aCorruptedBlockFailsTheReaderNamingTheObject() throws Exception
    {
        try (Spillway sw = Runtimes.small(dir, 2L * SIZE, "a").cleanReserve(0).prefetchDepth(0).build())
        {
            final Data a = sw.data("precious", SIZE);
            final Data b = sw.data("b", SIZE);
            final Data c = sw.data("c", SIZE);
            for (final Data d : new Data[] {a, b, c})
            {
                sw.task("init " + d.tag()).write(d).submit(ctx -> Runtimes.fill(ctx.buffer(d), 5));
            }
            sw.awaitAll();
            flipBytes(slabFiles());
            final TaskHandle reader = sw.task("reader").read(a).submit(ctx -> { });
            final TaskFailedException e = assertThrows(TaskFailedException.class, reader::join);
            assertTrue(e.getMessage().contains("'reader'") && e.getMessage().contains("'precious'"), e.getMessage());
            assertInstanceOf(BlockCorruptedException.class, BadInputTest.rootCause(e));
            Runtimes.copyOut(sw, c);
        }
    }

    @Test
    void aFullDiskFailsTheTaskThatNeededRoomAndLosesNothing() throws Exception
    {
        final long indexBytes = indexBytes();
        final long cap = indexBytes + 2L * SIZE;
        try (Spillway sw = Runtimes.small(dir.resolve("spill"), 2L * SIZE, "f").diskCap(cap).cleanReserve(0)
            .prefetchDepth(0).build())
        {
            final Data[] d = new Data[5];
            for (int i = 0; i < d.length; i++)
            {
                d[i] = sw.data("d" + i, SIZE);
            }
            for (int i = 0; i < 4; i++)
            {
                final Data di = d[i];
                sw.task("init " + i).write(di).submit(ctx -> Runtimes.fill(ctx.buffer(di), 9)).join();
            }
            final TaskHandle needsRoom = sw.task("init 4").write(d[4]).submit(ctx -> { });
            final TaskFailedException e = assertThrows(TaskFailedException.class, needsRoom::join);
            assertTrue(e.getMessage().contains("'init 4'"), e.getMessage());
            assertInstanceOf(StoreFullException.class, BadInputTest.rootCause(e), e.getMessage());
            final byte[] expected = new byte[SIZE];
            Runtimes.fill(java.nio.ByteBuffer.wrap(expected).order(java.nio.ByteOrder.nativeOrder()), 9);
            assertArrayEquals(expected, Runtimes.copyOut(sw, d[2]), "the object that could not be spilled is intact");
        }
    }

    @Test
    void writeFailuresNeverLivelockTheEngine() throws Exception
    {
        final long indexBytes = indexBytes();
        try (Spillway sw = Runtimes.small(dir.resolve("spill"), 4L * SIZE, "a,s,d").diskCap(indexBytes + 3L * SIZE)
            .cleanReserve(0.5).prefetchDepth(0).build())
        {
            final List<TaskHandle> handles = new java.util.ArrayList<>();
            for (int i = 0; i < 40; i++)
            {
                final Data d = sw.data("d" + i, SIZE);
                handles.add(sw.task("init " + i).write(d).submit(ctx -> Runtimes.fill(ctx.buffer(d), 6)));
            }
            final TaskFailedException all = assertThrows(TaskFailedException.class,
                () -> sw.awaitAll(java.time.Duration.ofSeconds(30)));
            assertInstanceOf(StoreFullException.class, BadInputTest.rootCause(all), all.getMessage());
            int failed = 0;
            for (final TaskHandle h : handles)
            {
                try
                {
                    h.join();
                }
                catch (final TaskFailedException e)
                {
                    failed++;
                    assertInstanceOf(StoreFullException.class, BadInputTest.rootCause(e), e.getMessage());
                }
            }
            assertTrue(failed > 0 && failed < 40, failed + " tasks failed");
            assertTrue(sw.stats().nvmWrites() <= 3, "only three blocks fit the cap: " + sw.stats());
            assertTrue(sw.stats().nvmWriteFailures() <= 4,
                "an object whose write failed is not chosen as victim again: " + sw.stats());
        }
    }

    /** @return disk bytes an empty direct store of the test's sizing takes: its index. */
    private long indexBytes() throws Exception
    {
        try (Store probe = Stores.open(StoreKind.DIRECT, new StoreSettings(dir.resolve("probe"), Long.MAX_VALUE,
            64 << 10, 256)))
        {
            return probe.diskBytesUsed();
        }
    }

    private List<Path> slabFiles() throws Exception
    {
        try (Stream<Path> files = Files.walk(dir))
        {
            final List<Path> slabs = files.filter(p -> p.getFileName().toString().startsWith("slab-")).toList();
            assertTrue(!slabs.isEmpty(), "expected slab files under " + dir);
            return slabs;
        }
    }

    private static void flipBytes(final List<Path> files) throws Exception
    {
        for (final Path p : files)
        {
            try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw"))
            {
                final byte[] chunk = new byte[(int)Math.min(f.length(), 1 << 20)];
                f.readFully(chunk);
                for (int i = 0; i < chunk.length; i += 512)
                {
                    chunk[i] ^= (byte)0x5A;
                }
                f.seek(0);
                f.write(chunk);
            }
        }
    }
}
