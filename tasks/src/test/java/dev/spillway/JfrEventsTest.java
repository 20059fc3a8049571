package dev.spillway;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The engine emits JFR events for task runs, NVMe reads and writes, and evictions. */
@Timeout(600)
class JfrEventsTest
{
    private static final int SIZE = 8 << 10;

    @TempDir
    Path dir;

    @Test
    void taskIoAndEvictionEventsAreRecorded() throws Exception
    {
        final Path file = dir.resolve("run.jfr");
        try (Recording recording = new Recording())
        {
            for (final String e : new String[] {"TaskRun", "IoRead", "IoWrite", "Eviction"})
            {
                recording.enable("dev.spillway." + e);
            }
            recording.start();
            try (Spillway sw = Runtimes.small(dir.resolve("spill"), 2L * SIZE, "a").cleanReserve(0).build())
            {
                final Data[] d = new Data[4];
                for (int i = 0; i < d.length; i++)
                {
                    d[i] = sw.data("d" + i, SIZE);
                    final Data di = d[i];
                    sw.task("init " + i).write(di).submit(ctx -> Runtimes.fill(ctx.buffer(di), 1));
                }
                sw.awaitAll();
                for (final Data x : d)
                {
                    sw.task("read " + x.tag()).read(x).submit(ctx -> { });
                }
            }
            recording.stop();
            recording.dump(file);
        }
        final Set<String> seen = RecordingFile.readAllEvents(file).stream().map(RecordedEvent::getEventType)
            .map(t -> t.getName()).collect(Collectors.toSet());
        assertEquals(Set.of("dev.spillway.TaskRun", "dev.spillway.IoRead", "dev.spillway.IoWrite",
            "dev.spillway.Eviction"), seen);
    }
}
