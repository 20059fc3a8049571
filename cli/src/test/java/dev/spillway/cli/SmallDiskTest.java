package dev.spillway.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.StringWriter;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code run} on a 97 MiB file system: refused up front when its data cannot fit, run when it can. */
@Tag("process")
class SmallDiskTest
{
    @TempDir
    Path tmp;

    private final InProcessCli cli = new InProcessCli();
    private final StringWriter err = cli.err;

    private int run(final String... args)
    {
        return cli.run(args);
    }

    /** 128 MiB of data with a 100 MiB budget passed the old check (data - budget + 64 MiB) and then filled the disk. */
    @Test
    void dataThatCannotFitIsRefusedBeforeTheRun() throws Exception
    {
        try (SmallDisk disk = SmallDisk.mount(tmp.resolve("small"), "97m"))
        {
            assertEquals(2, run("run", "lu", "--n", "4096", "--dram", "100m", "--workers", "2", "--dir",
                disk.path().resolve("spill").toString()), err::toString);
            assertTrue(err.toString().contains("--dir " + disk.path().resolve("spill") + " has 9") &&
                err.toString().contains("choose another --dir"), err::toString);
        }
    }

    /** The Chronicle map is sized from the run: it preallocated 4.2 GB whatever the problem. */
    @Test
    void chronicleStoreFitsASmallDiskWhenTheDataDoes() throws Exception
    {
        try (SmallDisk disk = SmallDisk.mount(tmp.resolve("small"), "97m"))
        {
            assertEquals(0, run("run", "lu", "--n", "2048", "--tile", "256", "--pivoting", "--dram", "30%",
                "--workers", "2", "--store", "chronicle", "--dir", disk.path().resolve("spill").toString()),
                err::toString);
        }
    }

    /** The direct store keeps within the bound the check used (its disk cap), on a disk with little room beyond. */
    @Test
    void directStoreFitsASmallDiskWhenTheDataDoes() throws Exception
    {
        try (SmallDisk disk = SmallDisk.mount(tmp.resolve("small"), "97m"))
        {
            assertEquals(0, run("run", "lu", "--n", "3072", "--tile", "256", "--dram", "25%", "--workers", "2",
                "--dir", disk.path().resolve("spill").toString()), err::toString);
        }
    }
}
