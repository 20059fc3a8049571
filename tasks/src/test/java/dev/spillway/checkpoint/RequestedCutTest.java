package dev.spillway.checkpoint;

import dev.spillway.Await;
import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.TaskHandle;
import dev.spillway.io.StoreKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

    /**
     * Never due by itself; a requested cut begins once {@link #open} is true, and its generation commits once
     * {@link #commit} is, keeping the section {@link #SECTION} if {@link #keepSection}; a restart hands the restored
     * section to {@link #restored}.
     */
    private static final class Gate implements CheckpointPolicy
    {
        static final String SECTION = "test.section";
        volatile boolean open;
        volatile boolean commit = true;
        volatile int asked;
        volatile int askedToCommit;
        volatile byte[] restored;
        volatile boolean keepSection;

        @Override
        public boolean mayCommit(final Cut cut)
        {
            askedToCommit++;
            return commit;
        }

        @Override
        public String commitWait(final Cut cut)
        {
            return "the test's gate at " + cut.globalIndex();
        }

        @Override
        public Map<String, byte[]> sections(final Cut cut)
        {
            return !keepSection ? Map.of() : Map.of(SECTION, ("state at " + cut.globalIndex()).getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public void restored(final RestorePoint point)
        {
            if (!point.blocks().containsKey(SECTION))
            {
                return;
            }
            final ByteBuffer dst = ByteBuffer.allocateDirect(4096);
            try
            {
                final int n = point.read(SECTION, dst);
                final byte[] bytes = new byte[n];
                dst.get(0, bytes);
                restored = bytes;
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public boolean due(final long tasksSinceCut, final long nanosSinceCut)
        {
            return false;
        }

        @Override
        public String beginWait(final long globalIndex)
        {
            return "the test's gate to open at " + globalIndex;
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
            Await.until("the wait report to say why the cut has not begun", () -> sw.describeWaits(10).contains(
                "the checkpoint cut requested at global index 100 waits for the test's gate to open at 100"), sw);
            gate.open = true;
            sw.awaitAll();
            assertTrue(gate.asked > 0);
        }
        final Cut cut = store.cuts().get(0);
        assertEquals(100, cut.globalIndex());
        assertEquals(5, cut.frontier(), "the cut lies between the fifth and the sixth task");
        assertEquals(Set.of("a0", "a1", "a2", "a3", "a4"), store.tags(cut));
    }

    /**
     * A generation with every save written and every task before its cut finished still waits while the policy
     * does not let it commit, saying so in the wait report; then it commits with the policy's section, which a
     * restart hands back.
     */
    @Test
    void aGenerationCommitsOnlyWhenThePolicyLetsItAndKeepsItsSection() throws Exception
    {
        final MemoryCheckpointStore store = new MemoryCheckpointStore();
        final Gate gate = new Gate();
        gate.open = true;
        gate.commit = false;
        gate.keepSection = true;
        try (Spillway sw = open(store, gate))
        {
            program(sw, 100);
            writeC(sw);
            Await.until("the generation to wait for the policy", () -> sw.describeWaits(10).contains(
                "checkpoint generation 0 waits for the test's gate at 100"), sw);
            final int asked = gate.askedToCommit;
            Await.until("the policy to be asked again", () -> gate.askedToCommit > asked + 1, sw);
            assertEquals(0, store.generations(), "the generation committed before the policy let it");
            gate.commit = true;
            sw.awaitAll();
            Await.until("the generation to commit", () -> store.generations() == 1, sw);
        }
        final Cut cut = store.cuts().get(0);
        assertTrue(store.tags(cut).contains(Gate.SECTION), "the section is not in the generation: " +
            store.tags(cut));
        store.forgetCompletion();
        final Gate again = new Gate();
        again.open = true;
        try (Spillway sw = open(store, again))
        {
            assertEquals("state at 100", new String(again.restored, StandardCharsets.UTF_8), "the restored section");
        }
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
