package dev.spillway;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** Child JVM for {@link CrashCleanupTest}: spills to the given directory, says so, then waits to be killed. */
public final class CrashChild
{
    private CrashChild()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path dir = Path.of(args[0]);
        final Spillway sw = Runtimes.small(dir, 2L * 16384, "a").cleanReserve(0).build();
        for (int i = 0; i < 6; i++)
        {
            final Data d = sw.data("d" + i, 16384);
            sw.task("init " + i).write(d).submit(ctx -> Runtimes.fill(ctx.buffer(d), 1));
        }
        sw.awaitAll();
        try (Stream<Path> files = Files.list(dir))
        {
            System.out.println("SPILLED " + files.findFirst().orElseThrow().getFileName() + " " + sw.stats().nvmWrites());
        }
        System.out.flush();
        Thread.sleep(120_000);
    }
}
