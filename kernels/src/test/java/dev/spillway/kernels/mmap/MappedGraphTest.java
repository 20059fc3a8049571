package dev.spillway.kernels.mmap;

import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileGraph;
import dev.spillway.kernels.graph.TileGraphContract;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The mmap baseline against the contract, with 64 KiB chunks so that tiles spread over several mappings. */
class MappedGraphTest extends TileGraphContract
{
    private static final long CHUNK = 64 << 10;

    @Override
    protected TileGraph open(final Path dir)
    {
        return new MappedGraph(dir, 2, CHUNK);
    }

    @Test
    void filesAreRemovedOnClose() throws IOException
    {
        final TileGraph graph = open(dir);
        final Tile small = graph.tile("small", 5000);
        final Tile large = graph.tile("large", (int)(3 * CHUNK) + 8);
        graph.task("fill").write(small, large).submit(a ->
        {
            fill(a.buffer(small), 1);
            fill(a.buffer(large), 2);
        });
        graph.awaitAll();
        assertArrayEquals(pattern(large.size(), 2), copyOut(graph, large), "a tile larger than a chunk");
        final List<Path> files = list(dir);
        assertEquals(1, files.size(), "one tile file: " + files);
        assertTrue(Files.size(files.get(0)) >= CHUNK + 3 * CHUNK + 8, "the file holds both chunks");
        graph.close();
        assertEquals(List.of(), list(dir), "close deletes the tile file");
        assertThrows(IllegalStateException.class, () -> graph.tile("late", 8));
    }

    private static List<Path> list(final Path dir) throws IOException
    {
        try (Stream<Path> s = Files.list(dir))
        {
            return s.toList();
        }
    }
}
