package dev.spillway.bench;

import dev.spillway.io.DirectIo;
import dev.spillway.io.Store;
import dev.spillway.io.StoreKind;
import dev.spillway.io.StoreSettings;
import dev.spillway.io.Stores;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One 4 MiB block written to, or read from, a store (the direct one unless {@code -p kind=CHRONICLE}), including the
 * store's CRC32C. MB/s = 4194.3 / (µs per op) * 1000. The read re-reads one block: the direct store bypasses the page
 * cache with {@code O_DIRECT}, the chronicle store does not, so its read measures a memory copy.
 */
@State(Scope.Thread)
public class StoreBench extends SpillwayBenchmark
{
    private static final int BLOCK = 4 << 20;

    /** The store implementation. */
    @Param("DIRECT")
    public StoreKind kind;

    private Path dir;
    private Store store;
    private ByteBuffer src;
    private ByteBuffer dst;
    private long version;

    /** Opens the store and writes the block that {@link #read()} reads. */
    @Setup(Level.Trial)
    public void open() throws IOException
    {
        dir = Files.createTempDirectory("spillway-jmh-");
        store = Stores.open(kind, new StoreSettings(dir, 1L << 30, BLOCK, 64));
        src = DirectIo.alignedBuffer(BLOCK);
        dst = DirectIo.alignedBuffer(BLOCK);
        for (int i = 0; i < BLOCK; i += Long.BYTES)
        {
            src.putLong(i, i * 0x9E3779B97F4A7C15L);
        }
        store.write("read", src, 0);
    }

    /** Closes the store, which removes its files. */
    @TearDown(Level.Trial)
    public void close() throws IOException
    {
        store.close();
        Files.deleteIfExists(dir);
    }

    /** Replaces one block with a new version. */
    @Benchmark
    public void write() throws IOException
    {
        store.write("write", src, ++version);
    }

    /** Reads one block back and verifies it. @return its length. */
    @Benchmark
    public int read() throws IOException
    {
        return store.read("read", dst);
    }
}
