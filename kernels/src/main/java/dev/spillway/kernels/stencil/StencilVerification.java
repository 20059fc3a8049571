package dev.spillway.kernels.stencil;

import dev.spillway.kernels.Verification;
import dev.spillway.kernels.graph.TileGraph;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.DoubleAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * The check of {@link Stencil}: every cell against a {@link StencilReference} run in this process, which must match
 * bit for bit. A grid over the verify limit is not verified here: its result checksum is to be compared with
 * {@link StencilReference#referenceChecksum} run separately.
 */
final class StencilVerification
{
    private static final int B = Double.BYTES;

    private final BlockGrid grid;
    /** x, y, z, bx, by, bz as given to the stencil. */
    private final int[] shape;
    private final int sweeps;
    private final int steps;
    private final long verifyLimitBytes;

    StencilVerification(final BlockGrid grid, final int[] shape, final int sweeps, final int steps,
        final long verifyLimitBytes)
    {
        this.grid = grid;
        this.shape = shape.clone();
        this.sweeps = sweeps;
        this.steps = steps;
        this.verifyLimitBytes = verifyLimitBytes;
    }

    Verification verify(final TileGraph graph, final BlockTiles tiles)
    {
        final long bytes = grid.totalCells() * B;
        if (bytes > verifyLimitBytes)
        {
            return new Verification(false, Double.NaN, 0, "not verified in-process: the grid's " + bytes +
                " bytes exceed the verify limit of " + verifyLimitBytes + " bytes; compare result_checksum with " +
                "StencilReference.referenceChecksum(" + join(shape) + ", " + sweeps + ", " + steps + ") run " +
                "separately");
        }
        final StencilReference reference = new StencilReference(shape[0], shape[1], shape[2], shape[3], shape[4],
            shape[5]);
        reference.run(sweeps, steps);
        final DoubleAccumulator worst = new DoubleAccumulator(Math::max, 0);
        final LongAdder differing = new LongAdder();
        for (int b = 0; b < grid.blocks(); b++)
        {
            final int block = b;
            graph.task("verify " + grid.meshTag(b)).read(tiles.mesh(b))
                .submit(access -> compare(access.buffer(tiles.mesh(block)), block, reference, worst, differing));
        }
        graph.awaitAll();
        return new Verification(differing.sum() == 0, worst.get(), 0, "whole grid vs in-memory sweep");
    }

    /** @return {@link StencilReference#referenceChecksum} for this stencil: the whole grid in this heap. */
    String referenceChecksum()
    {
        return StencilReference.referenceChecksum(shape[0], shape[1], shape[2], shape[3], shape[4], shape[5], sweeps,
            steps);
    }

    /** @return the reference's inputs: {@code XxYxZ-BXxBYxBZ-sSWEEPS-tSTEPS}. */
    String referenceKey()
    {
        return shape[0] + "x" + shape[1] + "x" + shape[2] + "-" + shape[3] + "x" + shape[4] + "x" + shape[5] + "-s" +
            sweeps + "-t" + steps;
    }

    private void compare(final ByteBuffer u, final int b, final StencilReference reference,
        final DoubleAccumulator worst, final LongAdder differing)
    {
        final int x0 = grid.start(b, 0);
        final int y0 = grid.start(b, 1);
        final int z0 = grid.start(b, 2);
        double blockWorst = 0;
        long blockDiffering = 0;
        int p = 0;
        for (int z = 0; z < grid.extent(b, 2); z++)
        {
            for (int y = 0; y < grid.extent(b, 1); y++)
            {
                for (int x = 0; x < grid.extent(b, 0); x++, p += B)
                {
                    final double actual = u.getDouble(p);
                    final double expected = reference.value(x0 + x, y0 + y, z0 + z);
                    if (Double.doubleToRawLongBits(actual) != Double.doubleToRawLongBits(expected))
                    {
                        blockDiffering++;
                        blockWorst = Math.max(blockWorst, Math.abs(actual - expected));
                    }
                }
            }
        }
        worst.accumulate(blockWorst);
        differing.add(blockDiffering);
    }

    private static String join(final int[] values)
    {
        return Arrays.toString(values).replaceAll("[\\[\\]]", "");
    }
}
