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

class OrderRecordTest
{
    @TempDir
    Path dir;

    @Test
    void recordsReadsBackAndForgets() throws IOException
    {
        final OrderRecord record = OrderRecord.in(dir);
        assertNull(record.read());
        record.write(13_421_773L);
        assertEquals(13_421_773L, record.read());
        record.write(6_710_886L);
        assertEquals(6_710_886L, record.read());
        try (var files = Files.list(dir))
        {
            assertEquals(1, files.count(), "no temporary left beside the record");
        }
        record.delete();
        assertNull(record.read());
    }

    @Test
    void aDamagedRecordIsRefusedByName() throws IOException
    {
        Files.writeString(dir.resolve(OrderRecord.FILE), "order-dram lots\n");
        final IOException e = assertThrows(IOException.class, () -> OrderRecord.in(dir).read());
        assertTrue(e.getMessage().contains(dir.resolve(OrderRecord.FILE).toString()), e.getMessage());
        assertTrue(e.getMessage().contains("order-dram lots"), e.getMessage());
        assertFalse(e.getMessage().contains("null"), e.getMessage());
    }
}
