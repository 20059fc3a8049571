package dev.spillway.checkpoint;

import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.TaskHandle;
import dev.spillway.io.StoreKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Spillway#checkpointHere}: the cut lies exactly at the call, whatever was admitted; tasks submitted after it
 * wait, with a reason, until the policy lets the cut begin; a restart skips the cuts its generation holds.
 */
class RequestedCutTest
{
    private static final Duration LIMIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    /** Never due by itself; a requested cut begins once {@link #open} is true. */
    private static final class Gate implements CheckpointPolicy
    {
        volatile boolean open;
        volatile int asked;

        @Override
        public boolean due(final long tasksSinceCut, final long nanosSinceCut)
        {
            return false;
        }

        @Override
        public boolean mayBegin(final long globalIndex)
        {
            asked++;
            return open;
        }

        @Override
        public void committed(final CheckpointCost cost)
        {
        }

        @Override
        public String describe()
        {
            return "gate";
        }
    }

    private Spillway open(final MemoryCheckpointStore store, final Gate gate)
    {
        return Spillway.builder().storeDir(dir).store(StoreKind.DIRECT).dramBudget(1 << 20).workers(2)
            .checkpoints(store, gate).build();
    }

    /** Submits writers of a0..a4, the cut request, then writers of b0..b4; @return the handles of the b writers. */
    private static List<TaskHandle> program(final Spillway sw, final long index)
    {
        for (int i = 0; i < 5; i++)
        {
            final Data a = sw.data("a" + i, 4096);
            sw.task("write a" + i).write(a).submit(ctx -> ctx.buffer(a).putLong(0, 42));
        }
        sw.checkpointHere(index);
        final List<TaskHandle> after = new ArrayList<>();
        for (int i = 0; i < 5; i++)
        {
            final Data b = sw.data("b" + i, 4096);
            after.add(sw.task("write b" + i).write(b).submit(ctx -> ctx.buffer(b).putLong(0, 7)));
        }
        return after;
    }

    /** A task after the last cut, so that the cut is taken before the run ends. */
    private static void writeC(final Spillway sw)
    {
        final Data c = sw.data("c", 4096);
        sw.task("write c").write(c).submit(ctx -> ctx.buffer(c).putLong(0, 1));
    }

    @Test
    void theCutLiesAtTheCallAndLaterTasksWaitForIt() throws Exception
    {
        final MemoryCheckpointStore store = new MemoryCheckpointStore();
        final Gate gate = new Gate();
        try (Spillway sw = open(store, gate))
        {
            final List<TaskHandle> after = program(sw, 100);
            final long deadline = System.nanoTime() + LIMIT.toNanos();
            while (!after.get(0).waitReason().contains("checkpoint cut requested before it (global index 100)"))
            {
                assertTrue(System.nanoTime() < deadline, "'write b0' never waited for the cut: " +
                    after.get(0).waitReason());
                Thread.sleep(1);
            }
            assertFalse(after.stream().anyMatch(TaskHandle::isDone), "a task after the cut ran before it began");
            assertEquals(0, store.generations());
            gate.open = true;
            sw.awaitAll();
            assertTrue(gate.asked > 0);
        }
        final Cut cut = store.cuts().get(0);
        assertEquals(100, cut.globalIndex());
        assertEquals(5, cut.frontier(), "the cut lies between the fifth and the sixth task");
        assertEquals(Set.of("a0", "a1", "a2", "a3", "a4"), store.tags(cut));
    }

    @Test
    void aRestartSkipsTheCutsItsGenerationHolds()
    {
        final MemoryCheckpointStore store = new MemoryCheckpointStore();
        final Gate gate = new Gate();
        gate.open = true;
        try (Spillway sw = open(store, gate))
        {
            program(sw, 100);
            sw.checkpointHere(200);
            writeC(sw);
            sw.awaitAll();
        }
        assertEquals(List.of(100L, 200L), store.cuts().stream().map(Cut::globalIndex).toList());
        store.forgetCompletion();
        try (Spillway sw = open(store, gate))
        {
            program(sw, 100);
            sw.checkpointHere(200);
            sw.checkpointHere(300);
            writeC(sw);
            sw.awaitAll();
        }
        assertEquals(List.of(100L, 200L, 300L), store.cuts().stream().map(Cut::globalIndex).toList(),
            "the resumed run took only the cut after the restored one");
    }
}
