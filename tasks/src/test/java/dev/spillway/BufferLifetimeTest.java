package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A buffer kept past its task cannot crash the JVM, and the poisoning option makes such use visible. */
@Timeout(120)
class BufferLifetimeTest
{
    private static final int SIZE = 64 << 10;

    @TempDir
    Path dir;

    @Test
    void aBufferKeptPastCloseIsHarmless()
    {
        final AtomicReference<ByteBuffer> kept = new AtomicReference<>();
        try (Spillway sw = Runtimes.small(dir, 8L * SIZE, "a").build())
        {
            final Data a = sw.data("a", SIZE);
            sw.task("keeper").write(a).submit(ctx ->
            {
                final ByteBuffer b = ctx.buffer(a);
                Runtimes.fill(b.duplicate(), 7);
                kept.set(b);
            }).join();
        }
        final ByteBuffer b = kept.get();
        long sum = 0;
        for (int i = 0; i < SIZE; i += Long.BYTES)
        {
            sum += b.getLong(i);
        }
        b.putLong(0, 42);
        assertEquals(42, b.getLong(0), "the kept buffer still works after close");
        assertEquals(0, sum, "its memory went back to the OS: it reads zeros, not the old data");
    }

    @Test
    void poisonedBuffersShowStaleReadsAndCatchStaleWrites()
    {
        final AtomicReference<ByteBuffer> kept = new AtomicReference<>();
        final Spillway sw = Runtimes.small(dir, 2L * SIZE, "a").poisonReleasedBuffers(true).build();
        final Data a = sw.data("a", SIZE);
        final Data b = sw.data("b", SIZE);
        final Data c = sw.data("c", SIZE);
        sw.task("keeper").write(a).submit(ctx -> kept.set(ctx.buffer(a))).join();
        sw.discard(a).join();
        final ByteBuffer stale = kept.get();
        assertTrue(Double.isNaN(stale.getDouble(0)), "a stale read sees the NaN poison, not another object's bytes");
        stale.putLong(128, 1);
        final SpillwayException e = assertThrows(SpillwayException.class, () ->
        {
            try
            {
                // the check may stop the runtime while "fill b" runs, so the second submit can be the call that fails
                sw.task("fill b").write(b).submit(ctx -> Runtimes.fill(ctx.buffer(b), 1));
                sw.task("fill c").write(c).submit(ctx -> Runtimes.fill(ctx.buffer(c), 2));
                sw.awaitAll();
            }
            finally
            {
                sw.close();
            }
        });
        assertTrue(e.getMessage().contains("released by 'a' was written at byte 128"), e.getMessage());
    }
}
