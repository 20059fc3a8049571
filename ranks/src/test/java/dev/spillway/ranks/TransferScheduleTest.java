package dev.spillway.ranks;

import dev.spillway.Data;
import dev.spillway.Privilege;
import dev.spillway.Spillway;
import dev.spillway.TaskRuntime;
import dev.spillway.io.StoreKind;
import dev.spillway.rdma.InProcessFabric;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The schedule worked out without running equals the transfers a real job makes, halves and local order included. */
class TransferScheduleTest
{
    private static final int RANKS = 3;
    private static final int OBJECTS = 12;
    private static final int TASKS = 300;
    private static final int BYTES = 4096;

    @TempDir
    Path dir;

    /** A seeded random program: every task writes one object and reads up to three. */
    private static void program(final Declarer declare, final Submitter submit)
    {
        final SplittableRandom random = new SplittableRandom(42);
        final List<Data> objects = new ArrayList<>();
        for (int o = 0; o < OBJECTS; o++)
        {
            objects.add(declare.data("o" + o, BYTES, random.nextInt(RANKS)));
        }
        for (int o = 0; o < OBJECTS; o++)
        {
            submit.task("init " + o, new Data[] {objects.get(o)}, new Privilege[] {Privilege.WRITE});
        }
        for (int t = 0; t < TASKS; t++)
        {
            final TreeSet<Integer> picked = new TreeSet<>();
            final int reads = 1 + random.nextInt(3);
            while (picked.size() < reads + 1)
            {
                picked.add(random.nextInt(OBJECTS));
            }
            final Data[] data = new Data[picked.size()];
            final Privilege[] privileges = new Privilege[picked.size()];
            int i = 0;
            final int written = random.nextInt(picked.size());
            for (final int o : picked)
            {
                data[i] = objects.get(o);
                privileges[i] = i == written ? (random.nextBoolean() ? Privilege.READ_WRITE : Privilege.WRITE)
                    : Privilege.READ;
                i++;
            }
            submit.task("t" + t, data, privileges);
        }
    }

    interface Declarer
    {
        Data data(String tag, int size, int owner);
    }

    interface Submitter
    {
        void task(String name, Data[] data, Privilege[] privileges);
    }

    @Test
    void equalsTheTransfersOfARealJob() throws Exception
    {
        final TransferSchedule schedule = new TransferSchedule(RANKS);
        program(schedule::declare, schedule::submit);
        final List<String> expected = new ArrayList<>();
        for (int i = 0; i < schedule.transfers(); i++)
        {
            expected.add(schedule.source(i) + "->" + schedule.target(i) + " at " + schedule.globalIndex(i) + " seqs "
                + schedule.sendSeq(i) + "/" + schedule.receiveSeq(i));
        }
        final List<CutRecording> recordings = runReally();
        final List<String> actual = new ArrayList<>();
        final List<CutRecording.Half> sends = new ArrayList<>();
        final List<CutRecording.Half> receives = new ArrayList<>();
        for (final CutRecording recording : recordings)
        {
            for (final CutRecording.Half half : recording.halves())
            {
                (half.send() ? sends : receives).add(half);
            }
        }
        sends.sort((a, b) -> Long.compare(a.globalIndex(), b.globalIndex()) * 2 + a.object().compareTo(b.object()));
        for (final CutRecording.Half send : sends)
        {
            final CutRecording.Half receive = receives.stream().filter(r -> r.globalIndex() == send.globalIndex()
                && r.object().equals(send.object())).findFirst().orElseThrow();
            actual.add(send.source() + "->" + send.target() + " at " + send.globalIndex() + " seqs " + send.seq() + "/"
                + receive.seq());
        }
        assertTrue(schedule.transfers() > TASKS / 2, "the program moves data: " + schedule.transfers());
        assertEquals(new TreeSet<>(expected), new TreeSet<>(actual));
        assertEquals(expected.size(), actual.size());
    }

    private List<CutRecording> runReally() throws Exception
    {
        try (InProcessFabric fabric = new InProcessFabric(RANKS, Duration.ofSeconds(120)))
        {
            final ExecutorService pool = Executors.newFixedThreadPool(RANKS);
            try
            {
                final List<Future<CutRecording>> futures = new ArrayList<>();
                for (int r = 0; r < RANKS; r++)
                {
                    final int rank = r;
                    futures.add(pool.submit(() ->
                    {
                        final CutRecording recording = new CutRecording(rank);
                        try (DistributedSpillway ds = new DistributedSpillway(fabric.transport(rank),
                            Spillway.builder().storeDir(dir.resolve("rank" + rank)).store(StoreKind.DIRECT)
                                .dramBudget(1 << 20).workers(1).storeSizing(256, 64 << 10), RankProtocol.NONE,
                            recording))
                        {
                            program(ds::data, (name, data, privileges) -> submit(ds, name, data, privileges));
                            ds.awaitAll();
                        }
                        return recording;
                    }));
                }
                final List<CutRecording> recordings = new ArrayList<>();
                for (final Future<CutRecording> f : futures)
                {
                    recordings.add(f.get(300, TimeUnit.SECONDS));
                }
                return recordings;
            }
            finally
            {
                pool.shutdownNow();
            }
        }
    }

    private static void submit(final TaskRuntime runtime, final String name, final Data[] data,
        final Privilege[] privileges)
    {
        final dev.spillway.TaskBuilder task = runtime.task(name);
        for (int i = 0; i < data.length; i++)
        {
            task.access(data[i], privileges[i]);
        }
        task.submit(ctx -> { });
    }
}
