package dev.spillway.cli.report;

import java.util.Map;

/**
 * What a run report says besides its trace.
 *
 * @param header   the run's context (command line, date, version, machine, DRAM cap), formatted, in order.
 * @param results  the run's figures, formatted, in order.
 * @param baseline the run beside its baseline, or null without one.
 * @param rawDisk  the disk's raw rates from {@code spillway bench io}, or null where none is known.
 */
public record RunFacts(Map<String, String> header, Map<String, String> results, Comparison baseline,
    DiskRates rawDisk)
{
    /**
     * One graph's run: its compute time and store traffic.
     *
     * @param name         {@code spillway}, or the baseline's name.
     * @param seconds      the compute phase's time.
     * @param bytesRead    bytes read from the store during the compute phase.
     * @param bytesWritten bytes written to the store during the compute phase.
     */
    public record Side(String name, double seconds, long bytesRead, long bytesWritten)
    {
    }

    /**
     * @param run       the run on Spillway.
     * @param baseline  the same graph on the baseline.
     * @param identical whether the two results' checksums match.
     */
    public record Comparison(Side run, Side baseline, boolean identical)
    {
    }

    /**
     * @param readBytesPerSecond  raw O_DIRECT read rate.
     * @param writeBytesPerSecond raw O_DIRECT write rate.
     * @param source              where the figures come from, e.g. the file's name.
     */
    public record DiskRates(double readBytesPerSecond, double writeBytesPerSecond, String source)
    {
    }
}
