package dev.spillway.kernels;

import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileGraph;

import java.util.List;

/**
 * One kernel run as a task graph: declare the tiles, fill the inputs, compute (the timed phase), then verify.
 * The runner checksums {@link #results()} after verification.
 */
public interface Kernel
{
    /** @return {@code matmul}, {@code lu} or {@code stencil}. */
    String name();

    /** @return the problem size shown in reports: n for dense kernels, cells for the stencil. */
    long size();

    /** @return the tile edge (dense) or block edge (stencil). */
    int tile();

    /** @return bytes of all tiles the kernel declares, pinned ones included. */
    long dataBytes();

    /** @return bytes of pinned tiles, which stay in DRAM for the whole run. */
    long pinnedBytes();

    /**
     * @return a lower bound on the bytes the compute phase moves between a budget of {@code budgetBytes} and the
     *         store, reads and writes together; its formula says which schedules it holds for.
     */
    IoLowerBound ioLowerBound(long budgetBytes);

    /** @return the largest working set of one task in bytes. */
    long largestTaskBytes();

    /** @return the objects of its largest task, its pinned objects and what may be stored, for up-front checks. */
    Footprint footprint();

    /** Declares every tile on {@code graph}. Called once, first. */
    void declare(TileGraph graph);

    /** Submits the tasks that generate the inputs. Not timed. */
    void initialize(TileGraph graph);

    /** Submits the timed tasks. */
    void compute(TileGraph graph);

    /** @return how many tasks {@link #compute} submits. */
    long computeTasks();

    /** @return the work done by {@link #compute}: floating-point operations, or cell updates for the stencil. */
    double work();

    /** @return {@code GFLOP/s} or {@code Gcell/s}: the unit of {@link #work()} per second, in billions. */
    String workUnit();

    /** Submits verification tasks after {@link #compute} finished, waits, and judges the result. */
    Verification verify(TileGraph graph);

    /** @return the tiles holding the final result, checksummed in tag order. */
    List<Tile> results();
}
