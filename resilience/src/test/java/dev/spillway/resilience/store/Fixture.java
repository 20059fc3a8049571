package dev.spillway.resilience.store;

import dev.spillway.checkpoint.Cut;
import dev.spillway.checkpoint.GenerationWriter;
import dev.spillway.checkpoint.RestorePoint;
import dev.spillway.io.DirectIo;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Helpers for the store tests: aligned buffers of seeded bytes, generations, directory scans. */
final class Fixture
{
    private Fixture()
    {
    }

    /** @return a direct, page-aligned buffer holding {@code bytes}, capacity rounded up to a page. */
    static ByteBuffer aligned(final byte[] bytes)
    {
        final ByteBuffer buffer = DirectIo.alignedBuffer((int)DirectIo.alignUp(Math.max(bytes.length, 1)));
        buffer.put(bytes).flip();
        return buffer;
    }

    static byte[] bytes(final long seed, final int length)
    {
        final byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /** Writes and commits a generation saving {@code blocks} (tag to bytes), all at {@code version}. */
    static void commit(final FileCheckpointStore store, final Map<String, byte[]> blocks, final long version)
        throws IOException
    {
        final long generation = store.nextGeneration();
        final GenerationWriter writer = store.begin(Cut.local(generation, 10 * generation, store.incarnation(), 42));
        for (final Map.Entry<String, byte[]> block : blocks.entrySet())
        {
            writer.save(block.getKey(), aligned(block.getValue()), version);
        }
        writer.commit();
    }

    static byte[] read(final RestorePoint point, final String tag) throws IOException
    {
        final int length = point.blocks().get(tag).length();
        final ByteBuffer dst = ByteBuffer.allocateDirect(length + 1);
        final int read = point.read(tag, dst);
        final byte[] bytes = new byte[read];
        dst.get(0, bytes);
        return bytes;
    }

    static Manifest manifest(final Path dir, final long generation) throws IOException
    {
        final Path file = Generations.manifest(dir, generation);
        return ManifestCodec.decode(file.getFileName().toString(), Files.readAllBytes(file), true);
    }

    static List<String> files(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.list(dir))
        {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    /**
     * Asserts the directory is orphan-free: exactly the {@code kept} manifests, exactly the blocks files they
     * refer to, nothing temporary (the progress file aside).
     */
    static void assertOrphanFree(final Path dir, final long... kept) throws IOException
    {
        final Set<String> expected = new TreeSet<>();
        for (final long generation : kept)
        {
            expected.add("gen-" + generation + ".manifest");
            for (final ManifestEntry entry : manifest(dir, generation).entries().values())
            {
                expected.add("blocks-" + entry.fileGeneration() + ".dat");
            }
        }
        final Set<String> actual = new TreeSet<>(files(dir));
        actual.remove(Generations.PROGRESS);
        actual.remove(Generations.STARTS);
        assertEquals(expected, actual, "files in " + dir);
    }
}
