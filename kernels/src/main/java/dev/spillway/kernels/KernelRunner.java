package dev.spillway.kernels;

import dev.spillway.kernels.graph.GraphProgress;
import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileGraph;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Runs a kernel's phases on a graph: declare and generate the inputs, compute (timed), verify, checksum. Each phase is
 * marked on the graph ({@link TileGraph#phase}) as it starts.
 */
public final class KernelRunner
{
    private KernelRunner()
    {
    }

    /**
     * @param verify   whether to run the kernel's verification (the checksum is always computed).
     * @param progress called about twice a second during the compute phase with counters relative to its start.
     */
    public static RunResult run(final Kernel kernel, final TileGraph graph, final boolean verify,
        final Consumer<GraphProgress> progress)
    {
        final long initStart = System.nanoTime();
        graph.phase("generation");
        kernel.declare(graph);
        kernel.initialize(graph);
        graph.awaitAll();
        graph.phase("compute");
        final long start = System.nanoTime();
        final GraphProgress before = graph.progress();
        final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r ->
        {
            final Thread t = new Thread(r, "spillway-progress");
            t.setDaemon(true);
            return t;
        });
        poller.scheduleAtFixedRate(() -> progress.accept(since(before, graph.progress())), 500, 500, TimeUnit.MILLISECONDS);
        final GraphProgress computed;
        final long end;
        try
        {
            kernel.compute(graph);
            graph.awaitAll();
            end = System.nanoTime();
            graph.endCheckpoints();
            computed = since(before, graph.progress());
        }
        finally
        {
            poller.shutdownNow();
        }
        progress.accept(computed);
        if (verify)
        {
            graph.phase("verification");
        }
        final Verification verification = verify ? kernel.verify(graph) : null;
        graph.phase("checksum");
        final ResultChecksum checksum = new ResultChecksum();
        for (final Tile tile : kernel.results())
        {
            graph.task("checksum " + tile.tag()).read(tile).submit(x -> checksum.add(tile.tag(), x.buffer(tile)));
        }
        graph.awaitAll();
        final long verified = graph.progress().tasksDone() - before.tasksDone() - computed.tasksDone();
        return new RunResult(graph.name(), (start - initStart) / 1e9, (end - start) / 1e9, computed.bytesRead(),
            computed.bytesWritten(), verification, checksum.value(), before.tasksSubmitted(),
            new PhaseTasks(before.tasksDone(), computed.tasksDone(), verified));
    }

    private static GraphProgress since(final GraphProgress before, final GraphProgress now)
    {
        return new GraphProgress(now.tasksSubmitted() - before.tasksSubmitted(), now.tasksDone() - before.tasksDone(),
            now.bytesRead() - before.bytesRead(), now.bytesWritten() - before.bytesWritten());
    }
}
