package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Pinning workers with OpenHFT Affinity (off by default) runs the same graph; CPUs that cannot be had are skipped. */
@Timeout(600)
class PinnedWorkersTest
{
    @TempDir
    Path dir;

    @Test
    void pinnedWorkersRunTasks()
    {
        try (Spillway sw = Runtimes.small(dir, 1 << 20, "a,s,d").pinWorkers(true).build())
        {
            final Data d = sw.data("d", 4096);
            sw.task("init").write(d).submit(ctx -> ctx.buffer(d).putLong(0, 0));
            for (int i = 0; i < 1000; i++)
            {
                sw.task("inc").readWrite(d).submit(ctx -> ctx.buffer(d).putLong(0, ctx.buffer(d).getLong(0) + 1));
            }
            final long[] out = new long[1];
            sw.task("read").read(d).submit(ctx -> out[0] = ctx.buffer(d).getLong(0)).join();
            assertEquals(1000, out[0]);
        }
    }
}
