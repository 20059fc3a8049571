package dev.spillway.kernels.graph;

import dev.spillway.Spillway;
import dev.spillway.SpillwayConfig;
import dev.spillway.io.StoreKind;
import dev.spillway.kernels.Kernel;
import dev.spillway.kernels.KernelRunner;
import dev.spillway.kernels.RunResult;
import dev.spillway.kernels.blas.JavaBlas;
import dev.spillway.kernels.dense.Gemm;
import dev.spillway.kernels.dense.Lu;
import dev.spillway.kernels.stencil.Stencil;
import dev.spillway.ranks.DistributedSpillway;
import dev.spillway.ranks.RankStats;
import dev.spillway.rdma.InProcessFabric;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each kernel on 2 to 4 ranks (in-process transport, one runtime per rank) gives a result bit-identical to the
 * single-rank run, verified on rank 0; tiles really move between ranks, and a tight budget makes received copies
 * spill.
 */
class DistributedKernelsTest
{
    @TempDir
    Path dir;

    static Kernel kernel(final String name)
    {
        return switch (name)
        {
            case "matmul" -> new Gemm(384, 64, 2, new JavaBlas());
            case "lu" -> new Lu(384, 64, false, new JavaBlas());
            case "lu-pivoting" -> new Lu(384, 64, true, new JavaBlas());
            default -> new Stencil(24, 20, 16, 2, 2, 2, 2, 3, Stencil.DEFAULT_VERIFY_LIMIT);
        };
    }

    private SpillwayConfig config(final String sub, final long budget, final String kernel)
    {
        return Spillway.builder().workers(1).dramBudget(budget).store(StoreKind.DIRECT).storeDir(dir.resolve(sub))
            .policy(kernel.startsWith("lu") ? "p,s,d" : "a,s,d");
    }

    @ParameterizedTest(name = "{0} on {1} ranks, budget 1/{2} of the data")
    @CsvSource({"matmul, 2, 2", "matmul, 3, 4", "lu, 2, 2", "lu, 4, 4", "lu-pivoting, 2, 2", "lu-pivoting, 3, 2",
        "stencil, 2, 1", "stencil, 3, 1"})
    void bitIdenticalToOneRank(final String name, final int ranks, final int fraction) throws Exception
    {
        final Kernel probe = kernel(name);
        final long budget = name.equals("stencil") ? 16L << 20 : Math.max(probe.dataBytes() / fraction,
            2 * probe.largestTaskBytes());
        final RunResult single;
        try (EngineGraph graph = new EngineGraph(config("single", budget, name).build()))
        {
            single = KernelRunner.run(kernel(name), graph, true, p -> { });
        }
        assertTrue(single.verification().verified(), single.toString());

        try (InProcessFabric fabric = new InProcessFabric(ranks, Duration.ofSeconds(60)))
        {
            final ExecutorService pool = Executors.newFixedThreadPool(ranks);
            try
            {
                final List<Future<Object[]>> futures = new ArrayList<>();
                for (int r = 0; r < ranks; r++)
                {
                    final int rank = r;
                    futures.add(pool.submit(() ->
                    {
                        final DistributedSpillway ds = new DistributedSpillway(fabric.transport(rank),
                            config("rank" + rank, budget, name));
                        try (EngineGraph graph = new EngineGraph(ds))
                        {
                            final RunResult result = KernelRunner.run(kernel(name), graph, true, p -> { });
                            return new Object[] {result, graph.rankStats(), graph.stats().nvmBytesWritten()};
                        }
                    }));
                }
                final RunResult root = (RunResult)futures.get(0).get(600, TimeUnit.SECONDS)[0];
                long received = 0;
                long tasks = 0;
                long spilled = 0;
                for (final Future<Object[]> f : futures)
                {
                    final Object[] o = f.get(600, TimeUnit.SECONDS);
                    received += ((RankStats)o[1]).bytesReceived();
                    tasks += ((RankStats)o[1]).tasksHere();
                    spilled += (Long)o[2];
                }
                assertTrue(root.verification().verified(), root.toString());
                assertEquals(single.checksum(), root.checksum(), "result differs from the single-rank run");
                assertTrue(received > 0, "no tile moved between ranks");
                assertTrue(tasks > 0);
                if (fraction >= 4)
                {
                    assertTrue(spilled > 0, "a budget of 1/" + fraction + " of the data never spilled");
                }
            }
            finally
            {
                pool.shutdownNow();
            }
        }
    }
}
