package dev.spillway.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The budget that shaped a checkpointed run's order: recorded afresh, kept on resume, stale ones ignored. */
class OrderRecordTest
{
    private static final long BUDGET = 6_710_886L;
    private static final long RECORDED = 13_421_773L;

    @TempDir
    Path dir;

    @Test
    void aFreshRunRecordsItsOwnBudget() throws IOException
    {
        final OrderRecord record = OrderRecord.in(dir);
        assertEquals(BUDGET, record.choose(null, BUDGET));
        assertNull(record.keep(BUDGET, BUDGET));
        assertEquals("order-dram " + BUDGET, recorded());
        try (var files = Files.list(dir))
        {
            assertEquals(1, files.count(), "no temporary left beside the record");
        }
        record.delete();
        assertFalse(Files.exists(dir.resolve(OrderRecord.FILE)));
    }

    @Test
    void aResumeKeepsTheRecordedOrderAndSaysSo() throws IOException
    {
        committedGeneration();
        record(RECORDED);
        final OrderRecord record = OrderRecord.in(dir);
        assertEquals(RECORDED, record.choose(null, BUDGET));
        final String note = record.keep(RECORDED, BUDGET);
        assertTrue(note != null && note.contains("this run keeps that order"), note);
        assertEquals("order-dram " + RECORDED, recorded(), "a resume never rewrites the record");
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> record.choose(BUDGET, BUDGET));
        assertTrue(e.getMessage().contains("--order-dram " + BUDGET + " differs") &&
            e.getMessage().contains(dir.resolve(OrderRecord.FILE).toString()), e.getMessage());
    }

    @Test
    void aFinishedRunsRecordIsStale() throws IOException
    {
        committedGeneration();
        record(RECORDED);
        Files.writeString(dir.resolve("complete"), "completed after generation 1\n");
        final OrderRecord record = OrderRecord.in(dir);
        assertEquals(BUDGET, record.choose(null, BUDGET));
        assertNull(record.keep(BUDGET, BUDGET));
        assertEquals("order-dram " + BUDGET, recorded(), "the next run records its own");
    }

    @Test
    void aResumeWithoutARecordLeavesNone() throws IOException
    {
        committedGeneration();
        final OrderRecord record = OrderRecord.in(dir);
        assertEquals(BUDGET, record.choose(null, BUDGET));
        assertNull(record.keep(BUDGET, BUDGET));
        assertFalse(Files.exists(dir.resolve(OrderRecord.FILE)),
            "the checkpointed run's order is unknown: a guess would refuse a later resume with the right --dram");
    }

    @Test
    void aDamagedRecordIsRefusedByName() throws IOException
    {
        committedGeneration();
        Files.writeString(dir.resolve(OrderRecord.FILE), "order-dram lots\n");
        final IOException e = assertThrows(IOException.class, () -> OrderRecord.in(dir));
        assertTrue(e.getMessage().contains(dir.resolve(OrderRecord.FILE).toString()), e.getMessage());
        assertTrue(e.getMessage().contains("order-dram lots"), e.getMessage());
    }

    private void committedGeneration() throws IOException
    {
        Files.writeString(dir.resolve("gen-1.manifest"), "a committed generation's name is enough here");
    }

    private void record(final long bytes) throws IOException
    {
        Files.writeString(dir.resolve(OrderRecord.FILE), "order-dram " + bytes + "\n");
    }

    private String recorded() throws IOException
    {
        return Files.readString(dir.resolve(OrderRecord.FILE)).trim();
    }
}
