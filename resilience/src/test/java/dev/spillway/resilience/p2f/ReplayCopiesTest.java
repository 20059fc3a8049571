package dev.spillway.resilience.p2f;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReplayCopiesTest
{
    @TempDir
    Path dir;

    private static ByteBuffer payload(final int bytes, final int seed)
    {
        final ByteBuffer b = ByteBuffer.allocateDirect(bytes);
        for (int i = 0; i < bytes; i++)
        {
            b.put(i, (byte) (i * 31 + seed));
        }
        return b;
    }

    private long files(final Path d) throws IOException
    {
        try (Stream<Path> s = Files.list(d))
        {
            return s.count();
        }
    }

    @Test
    void aCopyComesBackByteForByteFromItsFileNotTheHeap() throws IOException
    {
        try (ReplayCopies copies = ReplayCopies.in(dir.resolve("r")))
        {
            final ByteBuffer original = payload(100_000, 7);
            copies.put("a", original);
            original.put(0, (byte) 0x55);
            final ByteBuffer back = copies.get("a");
            assertEquals(100_000, back.remaining());
            assertEquals(payload(100_000, 7), back, "the copy is the payload as it was put");
            assertNull(copies.get("b"));
            assertEquals(100_000, copies.diskBytes());
        }
        assertFalse(Files.exists(dir.resolve("r")), "closing removes the directory");
    }

    @Test
    void copiesReceivedBeforeTheWatermarkAreDroppedWithTheirSegmentFiles() throws IOException
    {
        try (ReplayCopies copies = ReplayCopies.in(dir.resolve("r"), 800))
        {
            copies.put("e3", payload(800, 1));
            copies.put("e4", payload(800, 2));
            copies.put("unacked", payload(800, 3));
            copies.receivedIn("e3", 3);
            copies.receivedIn("e4", 4);
            assertEquals(3, files(dir.resolve("r")), "a segment each: 800 bytes fill one");
            copies.collect(4);
            assertNull(copies.get("e3"), "received before the watermark");
            assertEquals(payload(800, 2), copies.get("e4"));
            assertEquals(payload(800, 3), copies.get("unacked"), "a copy not yet acknowledged stays");
            assertEquals(2, files(dir.resolve("r")), "e3's segment file is gone");
            copies.collect(Integer.MAX_VALUE);
            assertTrue(copies.holds("unacked"), "not acknowledged: kept whatever the watermark");
            assertFalse(copies.holds("e4"));
        }
    }

    @Test
    void anEarlierIncarnationsFilesAreDeletedAndAClosedSetRefuses() throws IOException
    {
        Files.createDirectories(dir.resolve("r"));
        Files.write(dir.resolve("r").resolve("replays-0"), new byte[10]);
        final ReplayCopies copies = ReplayCopies.in(dir.resolve("r"));
        assertEquals(0, files(dir.resolve("r")));
        copies.close();
        final IllegalStateException e = assertThrows(IllegalStateException.class, () -> copies.put("a", payload(8, 0)));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }
}
