package dev.spillway.cli;

import picocli.CommandLine.Option;

import java.nio.file.Path;

/** The options the past-to-future benches share: an LU job on R launched ranks with aligned checkpoints. */
final class P2fBenchOptions
{
    @Option(names = "--ranks", paramLabel = "R", defaultValue = "4", description = "Ranks (default: ${DEFAULT-VALUE}).")
    int ranks;

    @Option(names = "--n", defaultValue = "8192", description = "LU order (default: ${DEFAULT-VALUE}).")
    int n;

    @Option(names = "--tile", defaultValue = "1024", description = "Tile edge (default: ${DEFAULT-VALUE}).")
    int tile;

    @Option(names = "--dram", defaultValue = "50%", description = "DRAM budget of each rank, of its share of the " +
        "data (default: ${DEFAULT-VALUE}).")
    String dram;

    @Option(names = "--every", paramLabel = "N", description = "Aligned cut every N global submissions (default: " +
        "a fifth of the job's LU tasks, so about five checkpoints).")
    Long every;

    @Option(names = "--workers", defaultValue = "1", description = "Workers per rank (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--allowance", converter = ByteSize.class, defaultValue = "320m",
        description = "DRAM allowed to each rank beyond its budget (default: ${DEFAULT-VALUE}).")
    long allowance;

    @Option(names = "--dir", defaultValue = "spillway-data", description = "Spill and checkpoint directory " +
        "(default: ${DEFAULT-VALUE}).")
    Path dir;

    @Option(names = "--json", paramLabel = "FILE", description = "Write the figures to FILE as JSON.")
    Path json;

    /** @return the problem's fault, or null when R, n and the tile make a job. */
    String problem()
    {
        return ranks < 2 || n % tile != 0 ? "need --ranks of at least 2 and --n a multiple of --tile; got " + ranks +
            ", " + n + " and " + tile : null;
    }

    /** @return each rank's DRAM budget in bytes. */
    long budget()
    {
        return new DramSize.Converter().convert(dram).of((long) n * n * Double.BYTES / ranks);
    }

    /** @return the aligned cut interval in global submissions. */
    long cutEvery()
    {
        final long t = n / tile;
        return every != null ? every : Math.max(1, t * (t + 1) * (2 * t + 1) / 6 / 5);
    }

    /** @return the runs of this job, their files under {@code dir/name}. */
    CheckpointRuns runs(final Path base)
    {
        return new CheckpointRuns(base, n, tile, dram, budget(), allowance, workers, 3600);
    }
}
