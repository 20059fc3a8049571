package dev.spillway.cli;

import dev.spillway.io.StoreKind;
import dev.spillway.kernels.blas.JavaBlas;
import dev.spillway.kernels.dense.Lu;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The disk bound of a run holds all of its data, whatever the DRAM budget: the spill directory of
 * {@code lu --n 4096 --dram 100m} was seen at 127 MiB for 128 MiB of data, so 97 MiB free must be refused. Chronicle's
 * map is sized from the run, not 4096 blocks of 1 MiB. Free space is passed in here; {@link SmallDiskTest} runs the
 * same on a small file system.
 */
class DiskCheckTest
{
    private static final long MIB = 1 << 20;

    @TempDir
    Path dir;

    @Test
    void theBoundHoldsAllTheDataAndTheIndex() throws Exception
    {
        final Lu lu = new Lu(4096, 512, false, new JavaBlas());
        final DiskCheck direct = DiskCheck.of(StoreKind.DIRECT, dir, lu.footprint(), 1, new int[0]);
        assertTrue(direct.bound() >= lu.dataBytes() && direct.bound() < lu.dataBytes() + 8 * MIB,
            direct.bound() + " B for " + lu.dataBytes() + " B of data");
        final String refused = direct.problem(97 * MIB);
        assertTrue(refused != null && refused.startsWith("--dir " + dir + " has 97 MiB free, but this run may take" +
            " up to 13") && refused.contains("choose another --dir"), refused);
        assertNull(direct.problem(direct.bound()));
    }

    @Test
    void chronicleIsSizedFromTheRun() throws Exception
    {
        final Lu lu = new Lu(2048, 256, true, new JavaBlas());
        final DiskCheck chronicle = DiskCheck.of(StoreKind.CHRONICLE, dir, lu.footprint(), 1, new int[0]);
        assertTrue(chronicle.bound() >= lu.dataBytes() && chronicle.bound() < 2 * lu.dataBytes(),
            chronicle.bound() + " B for " + lu.dataBytes() + " B of data");
    }

    @Test
    void theReplayCopiesOfLoggedTransfersCountBesideTheStore() throws Exception
    {
        final Lu lu = new Lu(2048, 256, false, new JavaBlas());
        final int[] logged = {512 << 10, 512 << 10, 512 << 10};
        final DiskCheck plain = DiskCheck.of(StoreKind.DIRECT, dir, lu.footprint(), 2, new int[0]);
        final DiskCheck p2f = DiskCheck.of(StoreKind.DIRECT, dir, lu.footprint(), 2, logged);
        assertEquals(3 * (512 << 10), p2f.replays(), "one copy of each logged payload");
        assertTrue(p2f.bound() >= plain.bound() + p2f.replays(), "the log objects are stored too: " + p2f.bound() +
            " B against " + plain.bound() + " B");
        assertEquals(p2f.bound() + p2f.replays(), p2f.total());
        final String refused = p2f.problem(p2f.bound());
        assertTrue(refused != null && refused.endsWith("and 1.5 MiB of payload copies kept for replays (past-to-future " +
            "logging); free some space or choose another --dir"), refused);
        assertNull(p2f.problem(p2f.total()));
        assertNull(plain.problem(plain.total()), "no copies without logging");
        assertEquals(0, plain.replays());
    }
}
