package dev.spillway.cli;

import dev.spillway.kernels.Kernel;
import dev.spillway.kernels.KernelRunner;
import dev.spillway.kernels.PhaseTasks;
import dev.spillway.kernels.RunResult;
import dev.spillway.kernels.graph.GraphProgress;
import dev.spillway.kernels.graph.TileGraph;
import dev.spillway.kernels.mmap.MappedGraph;
import dev.spillway.memory.ByteUnits;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Runs of a kernel on a graph for {@code run}, each with a progress line showing tasks done and NVMe traffic. */
final class GraphRuns
{
    private GraphRuns()
    {
    }

    /**
     * @param label what runs ({@code mmap}, {@code rank 2}), or empty for the main run.
     * @return the kernel's run on {@code graph}, verified if {@code verify}.
     */
    static RunResult withProgress(final Kernel kernel, final TileGraph graph, final String label,
        final boolean verify)
    {
        final long total = kernel.computeTasks();
        try (Progress progress = Progress.start((label.isEmpty() ? "" : label + " ") + kernel.name() + " compute",
            total))
        {
            return KernelRunner.run(kernel, graph, verify, p -> progress.set(p.tasksDone(), traffic(p)
                + (p.tasksDone() >= total ? (verify ? "; compute done, verifying" : "; compute done") : "")));
        }
    }

    /**
     * As {@link #withProgress} on one rank of a job: it counts the rank's own tasks, its share of the kernel and its
     * transfers, whose total is not known in advance.
     */
    static RunResult withRankProgress(final Kernel kernel, final TileGraph graph, final int rank,
        final boolean verify)
    {
        try (Progress progress = Progress.start("rank " + rank + " " + kernel.name() + " compute", -1))
        {
            return KernelRunner.run(kernel, graph, verify, p -> progress.set(p.tasksDone(), traffic(p)));
        }
    }

    /** @return the kernel's run on files mapped by the OS in a temporary directory of {@code area}, then removed. */
    static RunResult mapped(final Kernel kernel, final SpillArea area, final int workers, final String label,
        final boolean verify) throws IOException
    {
        final Path mapped = area.temporary("mmap-");
        try (MappedGraph graph = new MappedGraph(mapped, workers))
        {
            return withProgress(kernel, graph, label, verify);
        }
        finally
        {
            Dirs.deleteTree(mapped);
        }
    }

    /** @return the {@code tasks} object of {@code run --json}: tasks finished in each phase. */
    static Map<String, Object> phases(final PhaseTasks done)
    {
        final Map<String, Object> tasks = new LinkedHashMap<>();
        tasks.put("generation", done.generation());
        tasks.put("compute", done.compute());
        tasks.put("verification", done.verification());
        return tasks;
    }

    private static String traffic(final GraphProgress p)
    {
        return "read " + ByteUnits.format(p.bytesRead()) + ", wrote " + ByteUnits.format(p.bytesWritten());
    }
}
