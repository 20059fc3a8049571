package dev.spillway.checkpoint;

import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.SpillwayException;
import dev.spillway.io.StoreKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** After an internal error on the IO thread every call fails fast with that error, and close still cleans up. */
@Timeout(120)
class InternalErrorTest
{
    @TempDir
    Path dir;

    @Test
    void everyCallFailsFastAfterAnInternalError()
    {
        final CheckpointPolicy broken = new CheckpointPolicy()
        {
            @Override
            public boolean due(final long tasksSinceCut, final long nanosSinceCut)
            {
                throw new IllegalStateException("policy bug");
            }

            @Override
            public void committed(final CheckpointCost cost)
            {
            }

            @Override
            public String describe()
            {
                return "broken";
            }
        };
        final Spillway sw = Spillway.builder().storeDir(dir).store(StoreKind.DIRECT).dramBudget(1 << 20).workers(2)
            .checkpoints(new MemoryCheckpointStore(), broken).build();
        final Data a = sw.data("a", 4096);
        sw.task("first").write(a).submit(ctx -> { });
        SpillwayException waited = null;
        for (int i = 0; waited == null; i++)
        {
            assertTrue(i < 100_000, "the policy, asked after every finished task, never failed the runtime");
            try
            {
                sw.task("update " + i).readWrite(a).submit(ctx -> { });
                sw.awaitAll();
            }
            catch (final SpillwayException e)
            {
                waited = e;
            }
        }
        assertTrue(waited.getMessage().contains("policy bug"), waited.getMessage());
        for (final Runnable call : new Runnable[] {
            () -> sw.data("b", 4096),
            () -> sw.task("second").write(a).submit(ctx -> { }),
            sw::awaitAll})
        {
            final SpillwayException e = assertThrows(SpillwayException.class, call::run);
            assertTrue(e.getMessage().contains("accepts no more calls") && e.getMessage().contains("policy bug"),
                e.getMessage());
        }
        assertThrows(SpillwayException.class, sw::close);
        sw.close();
    }
}
