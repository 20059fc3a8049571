package dev.spillway.bench;

import dev.spillway.Data;
import dev.spillway.Spillway;
import dev.spillway.TaskBody;
import dev.spillway.io.StoreKind;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Engine overhead: one operation submits {@value #TASKS_PER_OP} tasks with empty bodies from the benchmark thread and
 * awaits them all, so the score divided by {@value #TASKS_PER_OP} is the cost of one task.
 */
@State(Scope.Benchmark)
public class EngineBench extends SpillwayBenchmark
{
    /** Tasks submitted per benchmark operation. */
    public static final int TASKS_PER_OP = 10_000;

    private static final TaskBody EMPTY = ctx ->
    {
    };

    /** Worker threads. */
    @Param("2")
    public int workers;

    private Path dir;
    private Spillway sw;
    private Data chain;

    /** Opens the runtime and writes the chain's object once. */
    @Setup(Level.Trial)
    public void open() throws IOException
    {
        dir = Files.createTempDirectory("spillway-jmh-");
        sw = Spillway.builder().workers(workers).dramBudget(256L << 20).store(StoreKind.DIRECT).storeDir(dir)
            .policy("a,s,d").build();
        chain = sw.data("chain", 64);
        sw.task("first").write(chain).submit(EMPTY).join();
    }

    /** Closes the runtime, which removes its spill files. */
    @TearDown(Level.Trial)
    public void close() throws IOException
    {
        sw.close();
        Files.deleteIfExists(dir);
    }

    /** {@value #TASKS_PER_OP} tasks without data objects: they go straight to the ready queue. */
    @Benchmark
    public void emptyTasks()
    {
        for (int i = 0; i < TASKS_PER_OP; i++)
        {
            sw.task("empty").submit(EMPTY);
        }
        sw.awaitAll();
    }

    /** {@value #TASKS_PER_OP} tasks that READ_WRITE one 64-byte object, so each depends on the one before. */
    @Benchmark
    public void readWriteChain()
    {
        for (int i = 0; i < TASKS_PER_OP; i++)
        {
            sw.task("link").readWrite(chain).submit(EMPTY);
        }
        sw.awaitAll();
    }
}
