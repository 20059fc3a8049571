package dev.spillway.kernels.stencil;

import dev.spillway.kernels.Footprint;
import dev.spillway.kernels.IoLowerBound;
import dev.spillway.kernels.Kernel;
import dev.spillway.kernels.Verification;
import dev.spillway.kernels.graph.Home;
import dev.spillway.kernels.graph.Tile;
import dev.spillway.kernels.graph.TileAccess;
import dev.spillway.kernels.graph.TileGraph;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The 7-point 3-D stencil of seed 003 §6.3.3: an X×Y×Z grid of doubles with fixed values outside it, relaxed for a
 * number of steps, each block doing several internal Gauss–Seidel sweeps per step. Each block is a spillable tile;
 * each face between two blocks gives each side a pinned ghost tile holding the other side's boundary layer.
 *
 * <p>One step submits one task per block in block order. The task for block b reads and writes b's tile, reads b's
 * ghosts, sweeps, then overwrites the ghosts that b's neighbours hold of b with b's new boundary layers. Because
 * dependencies follow submission order, a ghost that b reads was last written by its neighbour c in this step when c
 * comes before b, and in the step before when c comes after b; and c cannot overwrite it before b has read it. That
 * is exactly what a sequential program sees when it sweeps the blocks of one grid in the same order (block
 * Gauss–Seidel), so no parity double buffering is needed and {@link StencilReference} matches bit for bit. The graph
 * runs as a wavefront: a block waits for its lower neighbours (across x-, y-, z-, earlier in block order) in this step
 * and for its upper ones in the previous step.
 *
 * <p>A sweep replaces each cell by the mean of its six neighbours, in natural order (x fastest), with the arithmetic of
 * {@link Relaxation#update}. The initial value of every cell is a hash of its index, so any cell can be regenerated.
 */
public final class Stencil implements Kernel
{
    /** Grids up to this many bytes are verified in-process by default. */
    public static final long DEFAULT_VERIFY_LIMIT = 256L << 20;
    private static final int B = Double.BYTES;

    private final BlockGrid grid;
    private final int sweeps;
    private final int steps;
    private final StencilVerification verification;
    /** The tiles on the graph last declared on; null before. */
    private BlockTiles tiles;

    /**
     * @param x                cells along x; likewise {@code y}, {@code z}.
     * @param bx               blocks along x, 1 to {@code x}; likewise {@code by}, {@code bz}. Block edges along an
     *                         axis differ by at most one cell.
     * @param sweeps           Gauss–Seidel sweeps per block per step.
     * @param steps            steps.
     * @param verifyLimitBytes largest grid that {@link #verify} checks against an in-memory run.
     * @throws IllegalArgumentException naming the size at fault.
     */
    public Stencil(final int x, final int y, final int z, final int bx, final int by, final int bz, final int sweeps,
        final int steps, final long verifyLimitBytes)
    {
        grid = new BlockGrid(x, y, z, bx, by, bz);
        if (sweeps < 1)
        {
            throw new IllegalArgumentException("sweeps must be at least 1, got " + sweeps);
        }
        if (steps < 1)
        {
            throw new IllegalArgumentException("steps must be at least 1, got " + steps);
        }
        if ((long)steps * grid.blocks() > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException(steps + " steps of " + grid.blocks() + " blocks are more than " +
                Integer.MAX_VALUE + " tasks");
        }
        if (verifyLimitBytes < 0)
        {
            throw new IllegalArgumentException("verify limit must not be negative, got " + verifyLimitBytes);
        }
        this.sweeps = sweeps;
        this.steps = steps;
        this.verification = new StencilVerification(grid, new int[] {x, y, z, bx, by, bz}, sweeps, steps,
            verifyLimitBytes);
    }

    /**
     * @return a stencil over an x×y×z grid with blocks of at most 64 MiB, at least two per worker, near cubic (see
     *         {@link BlockCounts}), verified in-process up to {@link #DEFAULT_VERIFY_LIMIT}.
     */
    public static Stencil forGrid(final int x, final int y, final int z, final int workers, final int sweeps,
        final int steps)
    {
        final int[] counts = BlockCounts.choose(x, y, z, workers);
        return new Stencil(x, y, z, counts[0], counts[1], counts[2], sweeps, steps, DEFAULT_VERIFY_LIMIT);
    }

    /** @return blocks along x, y and z. */
    public int[] blockCounts()
    {
        return new int[] {grid.count(0), grid.count(1), grid.count(2)};
    }

    /**
     * @return the result checksum a run of this stencil must report, from {@link StencilReference} run in this
     *         process: it needs the whole grid in the heap. For grids over the verify limit, run it in a JVM of its own.
     */
    public String referenceChecksum()
    {
        return verification.referenceChecksum();
    }

    /** @return the inputs of {@link #referenceChecksum}, as a key: {@code XxYxZ-BXxBYxBZ-sSWEEPS-tSTEPS}. */
    public String referenceKey()
    {
        return verification.referenceKey();
    }

    @Override
    public String name()
    {
        return "stencil";
    }

    @Override
    public long size()
    {
        return grid.totalCells();
    }

    /** @return the longest block edge, in cells. */
    @Override
    public int tile()
    {
        return Math.max(grid.largestExtent(0), Math.max(grid.largestExtent(1), grid.largestExtent(2)));
    }

    @Override
    public long dataBytes()
    {
        return grid.totalCells() * B + pinnedBytes();
    }

    /**
     * One pass over the grid per step, each way: at most M of the D block bytes are in DRAM as a step starts, so it
     * reads the other D − M; as it ends at most M are, so it has written back the rest, all holding new values (the
     * last step's are the result). Ghosts are pinned and take their bytes off M. A schedule that skews steps (a
     * block's next step before every block finished this one) could do better only with the wavefront's lag in DRAM.
     */
    @Override
    public IoLowerBound ioLowerBound(final long budgetBytes)
    {
        final long spilled = Math.max(0, grid.totalCells() * B - (budgetBytes - pinnedBytes()));
        return new IoLowerBound(2L * steps * spilled, "2S(D − M): D − M read and written in each of the S steps");
    }

    @Override
    public long pinnedBytes()
    {
        long bytes = 0;
        for (int b = 0; b < grid.blocks(); b++)
        {
            bytes += ghostBytes(b);
        }
        return bytes;
    }

    /** @return one block's tile with the ghosts it reads and the ghosts it writes, for the largest block. */
    @Override
    public long largestTaskBytes()
    {
        long largest = 0;
        for (int b = 0; b < grid.blocks(); b++)
        {
            largest = Math.max(largest, (long)grid.blockCells(b) * B + 2 * ghostBytes(b));
        }
        return largest;
    }

    /**
     * @return the step task of the largest block: its block (spillable), its ghosts and the neighbours' ghosts it
     *         writes (pinned, each on its block's rank); every ghost is pinned; the blocks are stored.
     */
    @Override
    public Footprint footprint()
    {
        final int n = grid.blocks();
        int largest = 0;
        final int[] stored = new int[n];
        for (int b = 0; b < n; b++)
        {
            stored[b] = grid.blockCells(b) * B;
            if ((long)grid.blockCells(b) * B + 2 * ghostBytes(b) > (long)grid.blockCells(largest) * B +
                2 * ghostBytes(largest))
            {
                largest = b;
            }
        }
        final List<Footprint.Item> task = new ArrayList<>();
        task.add(new Footprint.Item(grid.blockCells(largest) * B, false, Home.slab(largest, n)));
        final List<Footprint.Item> pinned = new ArrayList<>();
        for (int b = 0; b < n; b++)
        {
            for (final Face f : Face.ALL)
            {
                final int c = grid.neighbour(b, f);
                if (c >= 0)
                {
                    pinned.add(new Footprint.Item(grid.planeCells(b, f) * B, true, Home.slab(b, n)));
                }
                if (c >= 0 && b == largest)
                {
                    task.add(new Footprint.Item(grid.planeCells(b, f) * B, true, Home.slab(b, n)));
                    task.add(new Footprint.Item(grid.planeCells(c, f.opposite()) * B, true, Home.slab(c, n)));
                }
            }
        }
        return new Footprint(task, pinned, stored);
    }

    private long ghostBytes(final int b)
    {
        long bytes = 0;
        for (final Face f : Face.ALL)
        {
            bytes += grid.neighbour(b, f) < 0 ? 0 : (long)grid.planeCells(b, f) * B;
        }
        return bytes;
    }

    @Override
    public void declare(final TileGraph graph)
    {
        tiles = new BlockTiles(graph, grid);
    }

    /**
     * Submits one task per block writing its initial values and its ghosts on its upper faces (x+, y+, z+), which hold
     * the neighbours' initial layers. Ghosts on lower faces need none: the neighbour there comes earlier in block
     * order, so its first step writes them before this block first reads them.
     */
    @Override
    public void initialize(final TileGraph graph)
    {
        requireDeclared();
        for (int b = 0; b < grid.blocks(); b++)
        {
            final int block = b;
            final List<Tile> written = new ArrayList<>();
            written.add(tiles.mesh(b));
            written.addAll(tiles.upperGhosts(b));
            graph.task("initialize " + grid.meshTag(b)).write(written.toArray(new Tile[0]))
                .submit(access -> initialize(access, block));
        }
    }

    private void initialize(final TileAccess access, final int b)
    {
        final ByteBuffer u = access.buffer(tiles.mesh(b));
        final int x0 = grid.start(b, 0);
        final int y0 = grid.start(b, 1);
        final int z0 = grid.start(b, 2);
        final int nx = grid.extent(b, 0);
        final int ny = grid.extent(b, 1);
        final int nz = grid.extent(b, 2);
        int p = 0;
        for (int z = 0; z < nz; z++)
        {
            for (int y = 0; y < ny; y++)
            {
                for (int x = 0; x < nx; x++, p += B)
                {
                    u.putDouble(p, Relaxation.initial(grid.cellIndex(x0 + x, y0 + y, z0 + z)));
                }
            }
        }
        for (final Face f : Face.ALL)
        {
            final Tile ghost = tiles.ghost(b, f);
            if (f.direction > 0 && ghost != null)
            {
                initialGhost(access.buffer(ghost), b, f);
            }
        }
    }

    /** Fills the plane of cells just outside block {@code b} across its upper {@code face} with initial values. */
    private void initialGhost(final ByteBuffer plane, final int b, final Face face)
    {
        final int[] at = new int[3];
        final int across = face.axis;
        at[across] = grid.start(b, across) + grid.extent(b, across);
        final int fast = across == 0 ? 1 : 0;
        final int slow = across == 2 ? 1 : 2;
        int p = 0;
        for (int v = 0; v < grid.extent(b, slow); v++)
        {
            for (int w = 0; w < grid.extent(b, fast); w++, p += B)
            {
                at[fast] = grid.start(b, fast) + w;
                at[slow] = grid.start(b, slow) + v;
                plane.putDouble(p, Relaxation.initial(grid.cellIndex(at[0], at[1], at[2])));
            }
        }
    }

    /**
     * Submits {@code steps} × blocks tasks, step by step and block by block. The priority falls along that order, so
     * policy {@code p} follows it.
     */
    @Override
    public void compute(final TileGraph graph)
    {
        requireDeclared();
        final int n = grid.blocks();
        final Tile[][] read = new Tile[n][];
        final Tile[][] written = new Tile[n][];
        for (int b = 0; b < n; b++)
        {
            read[b] = tiles.readBy(b);
            written[b] = tiles.writtenBy(b);
        }
        for (int s = 0; s < steps; s++)
        {
            for (int b = 0; b < n; b++)
            {
                final int block = b;
                graph.task("step " + s + " " + grid.meshTag(b)).readWrite(tiles.mesh(b)).read(read[b]).write(written[b])
                    .priority(-(s * n + b)).submit(access -> step(access, block));
            }
        }
    }

    private void step(final TileAccess access, final int b)
    {
        final int nx = grid.extent(b, 0);
        final int ny = grid.extent(b, 1);
        final int nz = grid.extent(b, 2);
        final ByteBuffer u = access.buffer(tiles.mesh(b));
        final ByteBuffer[] in = new ByteBuffer[Face.ALL.length];
        for (final Face f : Face.ALL)
        {
            final Tile ghost = tiles.ghost(b, f);
            in[f.ordinal()] = ghost == null ? null : access.buffer(ghost);
        }
        final BlockSweep sweep = new BlockSweep(nx, ny, nz, in);
        for (int s = 0; s < sweeps; s++)
        {
            sweep.sweep(u);
        }
        for (final Face f : Face.ALL)
        {
            if (grid.neighbour(b, f) >= 0)
            {
                Planes.copyLayer(u, nx, ny, nz, f, access.buffer(tiles.heldOf(b, f)));
            }
        }
    }

    @Override
    public long computeTasks()
    {
        return (long)steps * grid.blocks();
    }

    /** @return cell updates: cells × sweeps × steps. */
    @Override
    public double work()
    {
        return (double)grid.totalCells() * sweeps * steps;
    }

    @Override
    public String workUnit()
    {
        return "Gcell/s";
    }

    /**
     * Compares every cell with a {@link StencilReference} run in this process, which must match bit for bit. A grid
     * over the verify limit is not verified here: compare the run's result checksum with
     * {@link StencilReference#referenceChecksum} run separately.
     */
    @Override
    public Verification verify(final TileGraph graph)
    {
        requireDeclared();
        return verification.verify(graph, tiles);
    }

    /** @return the block tiles in tag order; valid after {@link #declare}. */
    @Override
    public List<Tile> results()
    {
        requireDeclared();
        return tiles.meshes();
    }

    private void requireDeclared()
    {
        if (tiles == null)
        {
            throw new IllegalStateException("the stencil's tiles are not declared yet: call declare(graph) first");
        }
    }
}
