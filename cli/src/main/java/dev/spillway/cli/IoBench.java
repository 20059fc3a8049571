package dev.spillway.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.spillway.cli.report.RunFacts;
import dev.spillway.io.DirectIo;
import dev.spillway.io.StoreKind;
import dev.spillway.io.StoreSettings;
import dev.spillway.memory.ByteUnits;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code spillway bench io}: spill and restore throughput of each store against raw {@code O_DIRECT} file IO of the
 * same bytes and block size, interleaved and repeated because disks are noisy.
 */
@Command(name = "io", mixinStandardHelpOptions = true,
    footer = {"", "Examples:",
        "  spillway bench io --size 4g --block 1m --dir /mnt/nvme/tmp --json io.json"},
    sortOptions = false,
    description = {"Spill and restore throughput of the stores against raw O_DIRECT IO.",
        "After an untimed warm-up pass of up to 256 MiB, each rep writes --size bytes as blocks of --block bytes " +
            "to a fresh store (and to one raw O_DIRECT file), " +
            "reads them back and checks them. Reports the median MB/s (1 MB = 10^6 bytes) and the ratio to raw. " +
            "Target: the direct store reaches 85%% of raw for both. All files are removed afterwards."})
final class IoBench implements Callable<Integer>
{
    private static final double TARGET_RATIO = 0.85;
    private static final long DISK_SLACK = 64L << 20;
    private static final long WARM_UP_BYTES = 256L << 20;

    @Spec
    private CommandSpec spec;

    @Option(names = "--size", paramLabel = "BYTES", converter = ByteSize.class, defaultValue = "2g",
        description = "Bytes per store and rep, e.g. 512m or 2g (default: ${DEFAULT-VALUE}).")
    private long size;

    @Option(names = "--block", paramLabel = "BYTES", converter = ByteSize.class, defaultValue = "4m",
        description = "Block size, a multiple of 4k (default: ${DEFAULT-VALUE}).")
    private long block;

    @Option(names = "--dir", paramLabel = "PATH", defaultValue = "spillway-data",
        description = "Directory for the files, created if missing (default: ${DEFAULT-VALUE}).")
    private Path dir;

    @Option(names = "--stores", paramLabel = "KIND", split = ",", defaultValue = "direct,chronicle",
        description = "Stores to measure: direct, chronicle or both (default: ${DEFAULT-VALUE}).")
    private List<StoreKind> stores;

    @Option(names = "--reps", paramLabel = "R", defaultValue = "3", description = "Reps (default: ${DEFAULT-VALUE}).")
    private int reps;

    @Mixin
    private JsonOutput json;

    private boolean createdBase;

    /** One store's medians in MB/s, and their ratios to raw IO. */
    record StoreResult(String store, double spillMbS, double restoreMbS, double spillVsRaw, double restoreVsRaw)
    {
    }

    /** What {@code --json} writes. */
    record Result(List<StoreResult> stores, double rawWriteMbS, double rawReadMbS, long sizeBytes, long blockBytes,
        int reps)
    {
    }

    @Override
    public Integer call() throws IOException
    {
        require(block > 0 && block % DirectIo.ALIGNMENT == 0 && block <= 1 << 30,
            "--block must be a positive multiple of 4k, at most 1g; got " + block);
        require(size >= block && size % block == 0, "--size must be a positive multiple of --block (" +
            ByteUnits.format(block) + "); got " + size);
        require(size / block <= 1 << 24, "--size / --block must be at most 16M blocks");
        require(reps >= 1, "--reps must be at least 1");
        final int blocks = (int)(size / block);
        final int maxBlocks = blocks + blocks / 8 + 16;
        final long needed = (long)maxBlocks * block + DISK_SLACK;

        final Path base = dir.toAbsolutePath().normalize();
        final double[][] write = new double[stores.size() + 1][reps];
        final double[][] read = new double[stores.size() + 1][reps];
        Path runDir = null;
        try
        {
            runDir = prepare(base, needed);
            measure(runDir, new StoreSettings(runDir, needed, (int)block, maxBlocks), write, read);
        }
        finally
        {
            cleanUp(base, runDir);
        }
        final Result r = result(write, read);
        print(r, base);
        json.write(r);
        return 0;
    }

    /**
     * Runs an untimed warm-up pass of at most {@value #WARM_UP_BYTES} bytes through raw IO and each store, then each
     * of them once per rep, rotating which goes first, into MB/s per unit and rep.
     */
    private void measure(final Path runDir, final StoreSettings settings, final double[][] write,
        final double[][] read) throws IOException
    {
        try (Progress progress = Progress.start("bench io", (long)reps * write.length + 1))
        {
            final IoWorkloads warmUp = new IoWorkloads(runDir, (int)block, (int)(Math.min(size, WARM_UP_BYTES) /
                block), settings);
            warmUp.raw();
            for (final StoreKind kind : stores)
            {
                warmUp.store(kind);
            }
            progress.step("warm-up");
            final IoWorkloads w = new IoWorkloads(runDir, (int)block, (int)(size / block), settings);
            for (int rep = 0; rep < reps; rep++)
            {
                for (int k = 0; k < write.length; k++)
                {
                    final int unit = (rep + k) % write.length;
                    final IoWorkloads.Timing t = unit == 0 ? w.raw() : w.store(stores.get(unit - 1));
                    write[unit][rep] = size / 1e6 / t.writeSeconds();
                    read[unit][rep] = size / 1e6 / t.readSeconds();
                    progress.step(String.format("%s rep %d: write %.0f MB/s, read %.0f MB/s", name(unit), rep + 1,
                        write[unit][rep], read[unit][rep]));
                }
            }
        }
    }

    private String name(final int unit)
    {
        return unit == 0 ? "raw O_DIRECT" : stores.get(unit - 1).name().toLowerCase(Locale.ROOT);
    }

    /** Creates {@code base} and a fresh run directory in it, after checking that the disk has room. */
    private Path prepare(final Path base, final long needed) throws IOException
    {
        try
        {
            final boolean existed = Files.isDirectory(base);
            Files.createDirectories(base);
            createdBase = !existed;
            final long usable = Files.getFileStore(base).getUsableSpace();
            if (usable < needed)
            {
                throw new IOException("not enough free disk space in " + base + ": bench io needs about " +
                    ByteUnits.atLeast(needed) + " (--size " + ByteUnits.format(size) + " plus store slack) but only " +
                    ByteUnits.format(usable) + " is usable; lower --size or pick another --dir");
            }
            return Files.createTempDirectory(base, "bench-io-");
        }
        catch (final FileSystemException e)
        {
            throw new IOException("cannot write to --dir " + base + ": " + reason(e), e);
        }
    }

    private static String reason(final FileSystemException e)
    {
        if (e.getReason() != null)
        {
            return e.getReason();
        }
        return e instanceof AccessDeniedException ? "permission denied" : e.toString();
    }

    /** Removes the run directory, and {@code base} if this run created it. */
    private void cleanUp(final Path base, final Path runDir) throws IOException
    {
        if (runDir != null)
        {
            Dirs.deleteTree(runDir);
        }
        if (createdBase)
        {
            try
            {
                Files.deleteIfExists(base);
            }
            catch (final DirectoryNotEmptyException e)
            {
                // Someone else put files there meanwhile: leave them.
            }
        }
    }

    /**
     * @return the raw O_DIRECT rates in {@code json}, a file {@code bench io --json} wrote.
     * @throws IOException naming the file if it cannot be read or holds no positive rates.
     */
    static RunFacts.DiskRates rawRates(final Path json) throws IOException
    {
        final JsonNode root;
        try
        {
            root = new ObjectMapper().readTree(json.toFile());
        }
        catch (final IOException e)
        {
            throw new IOException("cannot read " + json + ": " + e.getMessage(), e);
        }
        final double read = root == null ? 0 : root.path("raw_read_mb_s").asDouble();
        final double write = root == null ? 0 : root.path("raw_write_mb_s").asDouble();
        if (!(read > 0 && write > 0 && Double.isFinite(read + write)))
        {
            throw new IOException(json + " holds no raw_read_mb_s and raw_write_mb_s: it is not what `spillway " +
                "bench io --json` writes");
        }
        return new RunFacts.DiskRates(read * 1e6, write * 1e6, "spillway bench io (" + json.getFileName() + ")");
    }

    private Result result(final double[][] write, final double[][] read)
    {
        final double rawWrite = Samples.median(write[0]);
        final double rawRead = Samples.median(read[0]);
        final List<StoreResult> results = new ArrayList<>();
        for (int s = 0; s < stores.size(); s++)
        {
            final double spill = Samples.median(write[s + 1]);
            final double restore = Samples.median(read[s + 1]);
            results.add(new StoreResult(name(s + 1), spill, restore, spill / rawWrite, restore / rawRead));
        }
        return new Result(results, rawWrite, rawRead, size, block, reps);
    }

    private void print(final Result r, final Path base)
    {
        final PrintWriter out = spec.commandLine().getOut();
        out.printf("spillway bench io: %s as %d blocks of %s in %s, median of %d reps%n", ByteUnits.format(size),
            size / block, ByteUnits.format(block), base, reps);
        out.printf("%-14s %12s %14s %10s %12s%n", "store", "spill MB/s", "restore MB/s", "spill/raw", "restore/raw");
        out.printf("%-14s %12.1f %14.1f %9.0f%% %11.0f%%%n", name(0), r.rawWriteMbS(), r.rawReadMbS(), 100.0, 100.0);
        for (final StoreResult s : r.stores())
        {
            out.printf("%-14s %12.1f %14.1f %9.0f%% %11.0f%%%n", s.store(), s.spillMbS(), s.restoreMbS(),
                100 * s.spillVsRaw(), 100 * s.restoreVsRaw());
        }
        for (final StoreResult s : r.stores())
        {
            if (s.store().equals("direct"))
            {
                final boolean ok = s.spillVsRaw() >= TARGET_RATIO && s.restoreVsRaw() >= TARGET_RATIO;
                out.printf("verdict: direct store spill %.0f%% and restore %.0f%% of raw (target >= %.0f%%): %s%n",
                    100 * s.spillVsRaw(), 100 * s.restoreVsRaw(), 100 * TARGET_RATIO, ok ? "PASS" : "FAIL");
            }
            if (s.store().equals("chronicle"))
            {
                out.println("note: the chronicle store goes through the page cache, so its spill may end before " +
                    "the bytes reach the disk and its restore may be served from memory.");
            }
        }
        out.flush();
    }

    private void require(final boolean ok, final String message)
    {
        if (!ok)
        {
            throw new ParameterException(spec.commandLine(), message);
        }
    }
}
