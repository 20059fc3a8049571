package dev.spillway;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Seed 003, Figure 6.1: DRAM holds three objects; d5, d7, d8 are resident and the rest in NVMe. Task 1 uses d1-d3,
 * task 2 uses d4-d6 and task 3 uses d5, d7, d8 (tasks 2 and 3 share d5 for reading). Every eviction writes (all
 * objects are dirty, policy d off). FIFO moves 16 objects, fewest-in-NVMe-first moves 10.
 */
@Timeout(600)
class Figure61Test
{
    private static final int SIZE = 4096;

    @TempDir
    Path dir;

    @Test
    void fifoMoves16()
    {
        assertMovements("f", 8, 8);
    }

    @Test
    void fewestInNvmFirstMoves10()
    {
        assertMovements("a", 5, 5);
    }

    private void assertMovements(final String policy, final long reads, final long writes)
    {
        try (Spillway sw = Runtimes.small(dir, 3L * SIZE, policy).workers(1).prefetchDepth(0).cleanReserve(0)
            .build())
        {
            final Data[] d = new Data[9];
            for (final int i : new int[] {1, 2, 3, 4, 6, 5, 7, 8})
            {
                d[i] = sw.data("d" + i, SIZE);
                final Data di = d[i];
                sw.task("init d" + i).write(di).submit(ctx -> Runtimes.fill(ctx.buffer(di), di.hashCode()));
            }
            sw.awaitAll();
            final SpillwayStats before = sw.stats();
            assertEquals(5, before.nvmWrites(), "set-up leaves d5, d7, d8 resident and writes the other five");

            sw.pause();
            sw.task("task 1").readWrite(d[1], d[2], d[3]).submit(ctx -> touch(ctx, d[1], d[2], d[3]));
            sw.task("task 2").readWrite(d[4]).read(d[5]).readWrite(d[6]).submit(ctx -> touch(ctx, d[4], d[6]));
            sw.task("task 3").read(d[5]).readWrite(d[7], d[8]).submit(ctx -> touch(ctx, d[7], d[8]));
            sw.resume();
            sw.awaitAll();

            final SpillwayStats after = sw.stats();
            assertEquals(reads, after.nvmReads() - before.nvmReads(), "objects read under policy " + policy);
            assertEquals(writes, after.nvmWrites() - before.nvmWrites(), "objects written under policy " + policy);
        }
    }

    private static void touch(final TaskContext ctx, final Data... written)
    {
        for (final Data w : written)
        {
            final var b = ctx.buffer(w);
            b.put(0, (byte)(b.get(0) + 1));
        }
    }
}
