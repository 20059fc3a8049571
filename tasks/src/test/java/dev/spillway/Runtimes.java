package dev.spillway;

import dev.spillway.io.StoreKind;

import java.nio.ByteBuffer;
import java.nio.file.Path;

/** Test helpers: small runtimes and copying data out. */
final class Runtimes
{
    private Runtimes()
    {
    }

    static SpillwayConfig small(final Path dir, final long budget, final String policy)
    {
        return Spillway.builder().storeDir(dir).store(StoreKind.DIRECT).dramBudget(budget).policy(policy)
            .workers(2).storeSizing(256, 64 << 10);
    }

    static byte[] copyOut(final Spillway sw, final Data d)
    {
        final byte[] out = new byte[d.size()];
        sw.task("copy out " + d.tag()).read(d).submit(ctx -> ctx.buffer(d).get(out)).join();
        return out;
    }

    static void fill(final ByteBuffer b, final long seed)
    {
        long x = seed * 0x9E3779B97F4A7C15L + 1;
        while (b.remaining() >= 8)
        {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            b.putLong(x);
        }
        while (b.hasRemaining())
        {
            b.put((byte)x);
        }
    }
}
