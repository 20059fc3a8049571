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
import static org.junit.jupiter.api.Assertions.assertNull;
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
        volatile boolean release = true;
        volatile Map<String, ByteBuffer> mends = Map.of();
        volatile String mended = "never told";

        @Override
        public boolean mayRelease(final Cut cut)
        {
            return release;
        }

        @Override
        public String releaseWait(final Cut cut)
        {
            return "the test's release at " + cut.globalIndex();
        }

        @Override
        public Map<String, ByteBuffer> mends(final Cut cut)
        {
            return mends;
        }

        @Override
        public void mended(final Cut cut, final String failure)
        {
            mended = failure;
        }

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
            return !keepSection ? Map.of() :
                Map.of(SECTION, ("state at " + cut.globalIndex()).getBytes(StandardCharsets.UTF_8));
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

    /**
     * A blocking cut holds the tasks after it, once committed, until the policy lets them go, saying why; the objects
     * it names are mended first, in the generation and in the live objects, those in DRAM and those spilled alike.
     */
    @Test
    void tasksAfterABlockingCutWaitForTheReleaseAndSeeTheMendedObjects() throws Exception
    {
        final int size = 64 << 10;
        final MemoryCheckpointStore store = new MemoryCheckpointStore();
        final Gate gate = new Gate();
        gate.open = true;
        gate.commit = false;
        gate.release = false;
        final ByteBuffer right = ByteBuffer.allocate(size);
        for (int j = 0; j < size; j += 8)
        {
            right.putLong(j, 99 + j);
        }
        gate.mends = Map.of("a0", right, "a4", right);
        final long[] seen = new long[5];
        final List<TaskHandle> after = new ArrayList<>();
        String waits = "not asked";
        boolean ranEarly = false;
        try (Spillway sw = Spillway.builder().storeDir(dir).store(StoreKind.DIRECT).dramBudget(2L * size).workers(2)
            .checkpoints(store, gate).checkpointMode(CheckpointMode.BLOCKING).build())
        {
            try
            {
                final Data[] a = new Data[5];
                for (int i = 0; i < 5; i++)
                {
                    final Data x = a[i] = sw.data("a" + i, size);
                    sw.task("write a" + i).write(x).submit(ctx ->
                    {
                        for (int j = 0; j < size; j += 8)
                        {
                            ctx.buffer(x).putLong(j, 42);
                        }
                    });
                }
                sw.checkpointHere(100);
                for (int i = 0; i < 5; i++)
                {
                    final Data x = a[i];
                    final int k = i;
                    after.add(sw.task("sum a" + i).read(x).submit(ctx ->
                    {
                        seen[k] = byteSum(ctx.buffer(x), size);
                    }));
                }
                Await.until("the generation to wait for the test's gate, holding the tasks after it",
                    () -> sw.describeWaits(10).contains("held until checkpoint generation 0 commits (blocking " +
                    "checkpoints)"), sw);
                gate.commit = true;
                Await.until("the wait report to say why the tasks after the cut wait", () -> sw.describeWaits(10)
                    .contains("the tasks after checkpoint generation 0 (committed) wait for the test's release at 100"),
                    sw);
                waits = sw.describeWaits(10);
                ranEarly = after.stream().anyMatch(TaskHandle::isDone);
            }
            finally
            {
                gate.commit = true;
                gate.release = true;
            }
            sw.awaitAll();
        }
        assertFalse(ranEarly, "a task after the cut ran before its release");
        assertTrue(waits.contains("held until the tasks after checkpoint generation 0 may run") &&
            !waits.contains("commits (blocking checkpoints)"), "each held task says what it waits for now\n" + waits);
        assertNull(gate.mended, "the mends were applied");
        final long mended = byteSum(right, size);
        final long written = 42L * size / 8;
        assertEquals(List.of(mended, written, written, written, mended), List.of(seen[0], seen[1], seen[2],
            seen[3], seen[4]), "what the tasks after the cut read: a0 and a4 mended, a1 to a3 as written");
        final Cut cut = store.cuts().get(0);
        assertEquals(right, ByteBuffer.wrap(store.bytes(cut, "a4")), "the generation holds the mended a4");
        assertEquals(written, byteSum(ByteBuffer.wrap(store.bytes(cut, "a1")), size), "the generation's a1 as written");
    }

    /**
     * A mend that cannot be applied (here it names no object of the run) changes nothing, is told to the policy, and
     * the tasks after the cut never run: the wait report says why, and the run is cancelled.
     */
    @Test
    void aMendThatCannotBeAppliedChangesNothingAndNoTaskRunsPastTheCut() throws Exception
    {
        final MemoryCheckpointStore store = new MemoryCheckpointStore();
        final Gate gate = new Gate();
        gate.open = true;
        gate.mends = Map.of("a1", ByteBuffer.allocate(4096), "nowhere", ByteBuffer.allocate(4096));
        final List<TaskHandle> after;
        final String waits;
        final boolean ranEarly;
        try (Spillway sw = Spillway.builder().storeDir(dir).store(StoreKind.DIRECT).dramBudget(1 << 20).workers(2)
            .checkpoints(store, gate).checkpointMode(CheckpointMode.BLOCKING).build())
        {
            try
            {
                after = program(sw, 100);
                Await.until("the wait report to say why no task runs past the cut", () -> sw.describeWaits(10)
                    .contains("no task runs past the last checkpoint: could not mend"), sw);
                waits = sw.describeWaits(10);
                ranEarly = after.stream().anyMatch(TaskHandle::isDone);
            }
            finally
            {
                sw.cancelAll();
            }
        }
        assertTrue(gate.mended.contains("no data object 'nowhere' to mend"), gate.mended);
        assertFalse(ranEarly, "a task after the cut ran");
        assertTrue(waits.contains("held for good: ") && !waits.contains("commits (blocking checkpoints)"),
            "each held task says it is held for good\n" + waits);
        final Cut cut = store.cuts().get(0);
        assertEquals(42, ByteBuffer.wrap(store.bytes(cut, "a1")).order(java.nio.ByteOrder.nativeOrder()).getLong(0),
            "nothing was mended in the generation");
    }

    /** @return the sum of the first {@code size} bytes of {@code b}, unsigned: the same in either byte order. */
    private static long byteSum(final ByteBuffer b, final int size)
    {
        long sum = 0;
        for (int j = 0; j < size; j++)
        {
            sum += b.get(j) & 0xFF;
        }
        return sum;
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
