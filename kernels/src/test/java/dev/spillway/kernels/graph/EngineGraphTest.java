package dev.spillway.kernels.graph;

import dev.spillway.Spillway;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Spillway engine against the contract, with a DRAM budget well below the graphs' data, so tiles spill. */
class EngineGraphTest extends TileGraphContract
{
    /** Room for the largest task (6 tiles of up to 8 KiB) and the pinned tiles, not for all 40 tiles. */
    private static final long BUDGET = 112 << 10;

    @Override
    protected TileGraph open(final Path dir)
    {
        return new EngineGraph(Spillway.builder().workers(2).dramBudget(BUDGET).storeDir(dir)
            .storeSizing(256, 64 << 10).build());
    }

    @Test
    void randomGraphSpillsAndReadsBack()
    {
        try (TileGraph graph = open(dir))
        {
            runAndCheck(graph, new RandomTileProgram(5, 400));
            final GraphProgress p = graph.progress();
            assertTrue(p.bytesWritten() > 0 && p.bytesRead() > 0, "the budget must force spills: " + p);
        }
    }
}
